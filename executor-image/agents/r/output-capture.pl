# One captured stream of the kernel (its fd 1 or 2, a pipe): what it reads is sent as `stream` messages at
# once, UTF-8 decoded across reads, capped at the execution's outputLimit (the rest counted as dropped),
# until the sync marker the kernel writes after the code returned.
package SandpitCapture;
use strict;
use warnings;

sub new {
  my ($class, $name, $fh) = @_;
  return bless { name => $name, fh => $fh, pending => '', sent => 0, dropped => 0, limit => 1 << 20, marker => undef, synced => 0 }, $class;
}

sub begin {
  my ($self, $marker, $limit) = @_;
  @$self{qw(marker limit sent dropped synced)} = ("$marker\n", $limit, 0, 0, 0);
}

# Reads what is there; sends what is complete. Returns 0 at end of file.
sub pump {
  my ($self, $send, $id) = @_;
  my $n = sysread($self->{fh}, my $buf, 65536);
  return 1 if !defined $n;
  return 0 if $n == 0;
  $self->{pending} .= $buf;
  $self->flush($send, $id);
  return 1;
}

sub flush {
  my ($self, $send, $id) = @_;
  my $marker = $self->{marker};
  my $text = $self->{pending};
  my $keep = '';
  if (defined $marker && !$self->{synced}) {
    my $at = index($text, $marker);
    if ($at >= 0) {
      $text = substr($text, 0, $at) . substr($text, $at + length $marker);
      $self->{synced} = 1;
    } else {
      # a tail that may be the start of the marker waits for the next read
      for my $len (reverse 1 .. length($marker) - 1) {
        next if $len > length $text;
        if (substr($text, -$len) eq substr($marker, 0, $len)) { $keep = substr($text, -$len); $text = substr($text, 0, -$len); last }
      }
    }
  }
  my $tail = SandpitJson::incomplete_tail($text);
  $tail = 0 if $self->{synced};
  $keep = substr($text, length($text) - $tail) . $keep if $tail;
  $text = substr($text, 0, length($text) - $tail) if $tail;
  $self->{pending} = $keep;
  $self->send_text($text, $send, $id);
}

sub send_text {
  my ($self, $text, $send, $id) = @_;
  return if $text eq '';
  if (!defined $id) { return }    # output between executions belongs to none
  my $room = $self->{limit} - $self->{sent};
  if ($room <= 0) { $self->{dropped} += length $text; return }
  if (length $text > $room) {
    my $cut = $room - SandpitJson::incomplete_tail(substr($text, 0, $room));
    $self->{dropped} += length($text) - $cut;
    $text = substr($text, 0, $cut);
  }
  $self->{sent} += length $text;
  for (my $off = 0; $off < length $text; $off += 65536) {
    $send->({ type => 'stream', id => SandpitJson::str($id), name => $self->{name},
      text => SandpitJson::str(SandpitJson::repair_utf8(substr($text, $off, 65536))) });
  }
}

1;
