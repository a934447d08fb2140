# JSON for the channel: a small encoder and decoder over UTF-8 byte strings (perl-base has no JSON module),
# UTF-8 repair of captured output, and base64 (perl-base has no MIME::Base64).
package SandpitJson;
use strict;
use warnings;

my $VALID_UTF8 = qr/[\x00-\x7F]|[\xC2-\xDF][\x80-\xBF]|\xE0[\xA0-\xBF][\x80-\xBF]|[\xE1-\xEC\xEE\xEF][\x80-\xBF]{2}|\xED[\x80-\x9F][\x80-\xBF]|\xF0[\x90-\xBF][\x80-\xBF]{2}|[\xF1-\xF3][\x80-\xBF]{3}|\xF4[\x80-\x8F][\x80-\xBF]{2}/;

# Bytes → valid UTF-8 bytes, every invalid byte replaced by U+FFFD.
sub repair_utf8 {
  my ($bytes) = @_;
  my $out = '';
  while ($bytes =~ /\G(?:((?:$VALID_UTF8)+)|(.))/gs) {
    $out .= defined $1 ? $1 : "\xEF\xBF\xBD";
  }
  return $out;
}

# How many bytes at the end of $bytes may begin a UTF-8 sequence that the next read completes.
sub incomplete_tail {
  my ($bytes) = @_;
  my $n = length $bytes;
  for my $back (1 .. 3) {
    last if $back > $n;
    my $c = ord substr($bytes, $n - $back, 1);
    next if ($c & 0xC0) == 0x80;
    my $need = $c >= 0xF0 ? 4 : $c >= 0xE0 ? 3 : $c >= 0xC0 ? 2 : 1;
    return $need > $back ? $back : 0;
  }
  return 0;
}

sub encode_string {
  my ($s) = @_;
  $s =~ s/([\\"])/\\$1/g;
  $s =~ s/\n/\\n/g;
  $s =~ s/\r/\\r/g;
  $s =~ s/\t/\\t/g;
  $s =~ s/([\x00-\x1F\x7F])/sprintf('\\u%04x', ord $1)/ge;
  return "\"$s\"";
}

# Scalars that look like numbers are numbers; \1 and \0 are true and false; strings are passed as SandpitJson::str.
sub encode {
  my ($v) = @_;
  return 'null' unless defined $v;
  my $ref = ref $v;
  if ($ref eq 'HASH') {
    return '{' . join(',', map { encode_string($_) . ':' . encode($v->{$_}) } sort keys %$v) . '}';
  }
  return '[' . join(',', map { encode($_) } @$v) . ']' if $ref eq 'ARRAY';
  return $$v ? 'true' : 'false' if $ref eq 'SCALAR';
  return encode_string($$v) if $ref eq 'SandpitJson::Str';
  return $v if $v =~ /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;
  return encode_string($v);
}

# A value that is always encoded as a string (a file named "12" stays a string).
sub str { my ($s) = @_; return bless \$s, 'SandpitJson::Str' }

sub code_point_utf8 {
  my ($cp) = @_;
  return chr $cp if $cp < 0x80;
  return pack('C2', 0xC0 | ($cp >> 6), 0x80 | ($cp & 0x3F)) if $cp < 0x800;
  return pack('C3', 0xE0 | ($cp >> 12), 0x80 | (($cp >> 6) & 0x3F), 0x80 | ($cp & 0x3F)) if $cp < 0x10000;
  return pack('C4', 0xF0 | ($cp >> 18), 0x80 | (($cp >> 12) & 0x3F), 0x80 | (($cp >> 6) & 0x3F), 0x80 | ($cp & 0x3F));
}

sub decode_value {
  my ($text) = @_;
  $$text =~ /\G\s*/gc;
  if ($$text =~ /\G\{/gc) {
    my %h;
    $$text =~ /\G\s*/gc;
    return \%h if $$text =~ /\G\}/gc;
    while (1) {
      $$text =~ /\G\s*/gc;
      die "key expected\n" unless substr($$text, pos($$text) // 0, 1) eq q(");
      my $k = decode_value($text);
      $$text =~ /\G\s*:/gc or die "colon expected\n";
      $h{$k} = decode_value($text);
      $$text =~ /\G\s*/gc;
      next if $$text =~ /\G,/gc;
      return \%h if $$text =~ /\G\}/gc;
      die "bad object\n";
    }
  }
  if ($$text =~ /\G\[/gc) {
    my @a;
    $$text =~ /\G\s*/gc;
    return \@a if $$text =~ /\G\]/gc;
    while (1) {
      push @a, decode_value($text);
      $$text =~ /\G\s*/gc;
      next if $$text =~ /\G,/gc;
      return \@a if $$text =~ /\G\]/gc;
      die "bad array\n";
    }
  }
  if ($$text =~ /\G"/gc) {
    my $s = '';
    while (1) {
      if ($$text =~ /\G([^"\\]+)/gc) { $s .= $1; next }
      last if $$text =~ /\G"/gc;
      if ($$text =~ /\G\\u([0-9a-fA-F]{4})/gc) {
        my $cp = hex $1;
        if ($cp >= 0xD800 && $cp < 0xDC00 && $$text =~ /\G\\u([dD][c-fC-F][0-9a-fA-F]{2})/gc) {
          $cp = 0x10000 + (($cp - 0xD800) << 10) + (hex($1) - 0xDC00);
        }
        $s .= code_point_utf8($cp);
        next;
      }
      if ($$text =~ /\G\\(.)/gcs) {
        my %esc = (n => "\n", t => "\t", r => "\r", b => "\b", f => "\f", '/' => '/', '\\' => '\\', '"' => '"');
        $s .= $esc{$1} // die "bad escape\n";
        next;
      }
      die "unterminated string\n";
    }
    return $s;
  }
  return 1 if $$text =~ /\Gtrue/gc;
  return 0 if $$text =~ /\Gfalse/gc;
  return undef if $$text =~ /\Gnull/gc;
  return $1 + 0 if $$text =~ /\G(-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)/gc;
  die "bad JSON\n";
}

sub decode {
  my ($line) = @_;
  my $v = decode_value(\$line);
  $line =~ /\G\s*$/gc or die "trailing characters\n";
  return $v;
}

my $B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

# Through pack/unpack 'u' (uuencode is base64 with another alphabet): fast enough for MiB-sized files.
sub base64_encode {
  my ($bytes) = @_;
  return '' if $bytes eq '';
  my $uu = pack('u', $bytes);
  $uu =~ s/^.//mg;
  $uu =~ tr/\n//d;
  $uu =~ tr{` -_}{AA-Za-z0-9+/};
  my $pad = (3 - length($bytes) % 3) % 3;
  substr($uu, -$pad) = '=' x $pad if $pad;
  return $uu;
}

# undef for text that is not standard base64.
sub base64_decode {
  my ($text) = @_;
  return $text if $text eq "";
  return undef unless $text =~ m{^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$};
  $text =~ tr/=//d;
  $text =~ tr{A-Za-z0-9+/}{ -_};
  my $uu = '';
  for (my $i = 0; $i < length $text; $i += 60) {
    my $line = substr($text, $i, 60);
    $uu .= chr(32 + int(length($line) * 3 / 4)) . $line . "\n";
  }
  return unpack('u', $uu);
}

1;
