# The `fs` requests of PROTOCOL.md: every path component opened from its parent's descriptor through
# /proc/self/fd/<fd>/<name> with O_NOFOLLOW (perl-base has no openat), so a link is refused, never resolved.
package SandpitFiles;
use strict;
use warnings;
use Fcntl qw(O_RDONLY O_WRONLY O_CREAT O_TRUNC O_APPEND O_NOFOLLOW O_NONBLOCK O_DIRECTORY S_ISREG S_ISDIR S_ISLNK);
use POSIX qw(:errno_h);
use Time::HiRes qw(lstat stat);

my $CHUNK = 1024 * 1024;
my %writes;    # id → { fh, size_before, failed }

sub workspace { return $ENV{SANDPIT_WORKSPACE} || '/workspace' }

sub fail { my ($code, $message) = @_; die { code => $code, message => $message } }

sub errno_code {
  my ($errno) = @_;
  return 'NOT_FOUND' if $errno == ENOENT;
  return 'NOT_A_DIRECTORY' if $errno == ENOTDIR;
  return 'LINK' if $errno == ELOOP;
  return 'DENIED' if $errno == EACCES || $errno == EPERM;
  return 'NO_SPACE' if $errno == ENOSPC || $errno == EDQUOT || $errno == EFBIG;
  return 'IO';
}

sub is_string {
  no warnings 'experimental::builtin';
  return builtin::created_as_string($_[0]);
}

sub components {
  my ($path, $allow_root) = @_;
  fail('INVALID_PATH', 'The path must be a string.') if !defined $path || ref $path || !is_string($path);
  return () if $path eq '' && $allow_root;
  fail('INVALID_PATH', 'The path is empty.') if $path eq '';
  fail('INVALID_PATH', "\"$path\" is longer than 4096 bytes.") if length $path > 4096;
  fail('INVALID_PATH', 'The path contains a NUL byte.') if $path =~ /\0/;
  fail('INVALID_PATH', "\"$path\" must be relative to the workspace.") if $path =~ m{^/};
  my @parts = split m{/}, $path, -1;
  for (@parts) { fail('INVALID_PATH', "\"$path\" has an empty, . or .. component.") if $_ eq '' || $_ eq '.' || $_ eq '..' }
  return @parts;
}

sub at { my ($dir, $name) = @_; return '/proc/self/fd/' . fileno($dir) . "/$name" }

# Opens $name in the directory $dir with O_NOFOLLOW; a link is LINK, whatever the flags.
sub open_at {
  my ($dir, $name, $flags, $shown, $mode) = @_;
  my $fh;
  return $fh if sysopen($fh, at($dir, $name), $flags | O_NOFOLLOW, $mode // 0644);
  my $errno = $! + 0;
  fail('LINK', "\"$shown\" is a symbolic link; Sandpit does not follow links.") if -l at($dir, $name);
  fail('NOT_FOUND', "\"$shown\" does not exist.") if $errno == ENOENT;
  fail('NOT_A_DIRECTORY', "\"$shown\" is not a directory.") if $errno == ENOTDIR;
  fail('NOT_A_FILE', "\"$shown\" is not a regular file.") if $errno == ENXIO || $errno == EISDIR;
  fail(errno_code($errno), "\"$shown\": $!");
}

sub open_root {
  my $fh;
  sysopen($fh, workspace(), O_RDONLY | O_DIRECTORY) or fail(errno_code($! + 0), 'The workspace cannot be opened: ' . $!);
  return $fh;
}

# The directory holding the last component: (dir handle, last name). $create makes missing directories.
sub walk_to_parent {
  my ($parts, $create) = @_;
  my $dir = open_root();
  my @done;
  for my $name (@$parts[0 .. $#$parts - 1]) {
    push @done, $name;
    my $shown = join '/', @done;
    mkdir(at($dir, $name), 0755) if $create && !-e at($dir, $name) && !-l at($dir, $name);
    $dir = open_at($dir, $name, O_RDONLY | O_DIRECTORY, $shown);
  }
  return ($dir, $parts->[-1]);
}

sub open_dir {
  my ($path) = @_;
  my @parts = components($path, 1);
  return open_root() unless @parts;
  my ($dir, $last) = walk_to_parent(\@parts, 0);
  return open_at($dir, $last, O_RDONLY | O_DIRECTORY, $path);
}

sub read_file {
  my ($req, $send) = @_;
  my $path = $req->{path};
  my @parts = components($path, 0);
  my $max = defined $req->{maxBytes} ? $req->{maxBytes} : 100 * 1024 * 1024;
  my ($dir, $last) = walk_to_parent(\@parts, 0);
  my $fh = open_at($dir, $last, O_RDONLY | O_NONBLOCK, $path);
  my @st = stat $fh;
  fail('NOT_A_FILE', "\"$path\" is a directory, not a regular file.") if S_ISDIR($st[2]);
  fail('NOT_A_FILE', "\"$path\" is not a regular file.") unless S_ISREG($st[2]);
  fail('TOO_LARGE', "\"$path\" is $st[7] bytes, more than the limit of $max bytes.") if $st[7] > $max;
  my $total = 0;
  while (1) {
    my $n = sysread($fh, my $buf, $CHUNK);
    fail(errno_code($! + 0), "\"$path\": $!") unless defined $n;
    last if $n == 0;
    $total += $n;
    fail('TOO_LARGE', "\"$path\" grew past the limit of $max bytes while it was read.") if $total > $max;
    $send->({ type => 'fs-data', id => SandpitJson::str($req->{id}), data => SandpitJson::base64_encode($buf) });
  }
  $send->({ type => 'fs-done', id => SandpitJson::str($req->{id}), size => $total });
}

sub kind_of {
  my ($mode) = @_;
  return 'symlink' if S_ISLNK($mode);
  return 'file' if S_ISREG($mode);
  return 'directory' if S_ISDIR($mode);
  return 'other';
}

sub list_dir {
  my ($req, $send) = @_;
  my $dir = open_dir($req->{path});
  opendir(my $dh, '/proc/self/fd/' . fileno($dir)) or fail(errno_code($! + 0), "\"$req->{path}\": $!");
  my @names = sort grep { $_ ne '.' && $_ ne '..' } readdir $dh;
  my $truncated = @names > 5000;
  @names = @names[0 .. 4999] if $truncated;
  my @entries;
  for my $name (@names) {
    my @st = lstat at($dir, $name);
    next unless @st;
    push @entries, { name => SandpitJson::str($name), type => kind_of($st[2]), size => $st[7], mtime => $st[9] };
  }
  $send->({ type => 'fs-list', id => SandpitJson::str($req->{id}), entries => \@entries, truncated => \($truncated ? 1 : 0) });
}

sub write_chunk {
  my ($req, $send) = @_;
  my $id = $req->{id};
  my $state = $writes{$id};
  if (!$state) {
    my $opened = eval { $state = open_for_write($req); 1 };
    if (!$opened) { $writes{$id} = { failed => 1 } unless $req->{last}; die $@ }
    $writes{$id} = $state;
  }
  if ($state->{failed}) { delete $writes{$id} if $req->{last}; return }
  my $data = SandpitJson::base64_decode($req->{data} // '');
  fail_write($state, $id, $req, { code => 'IO', message => 'The data of a write is not standard base64.' }) unless defined $data;
  my $ok = eval {
    my $off = 0;
    while ($off < length $data) {
      my $n = syswrite($state->{fh}, $data, length($data) - $off, $off);
      fail(errno_code($! + 0), "\"$state->{path}\": $!") unless defined $n;
      $off += $n;
    }
    1;
  };
  fail_write($state, $id, $req, $@) unless $ok;
  if ($req->{last}) {
    my @st = stat $state->{fh};
    close $state->{fh};
    delete $writes{$id};
    $send->({ type => 'fs-done', id => SandpitJson::str($id), size => $st[7] });
  }
}

# After a failure the file is cut back to its size when it was opened and the write's later chunks are ignored.
sub fail_write {
  my ($state, $id, $req, $err) = @_;
  truncate($state->{fh}, $state->{keep});
  close $state->{fh};
  $state->{failed} = 1;
  delete $writes{$id} if $req->{last};
  $err = { code => 'IO', message => "$err" } unless ref $err;
  $err->{message} = "No space left on device: $err->{message}" if $err->{code} eq 'NO_SPACE' && $err->{message} !~ /No space left on device/;
  die $err;
}

sub open_for_write {
  my ($req) = @_;
  {
    my $path = $req->{path};
    my @parts = components($path, 0);
    my ($dir, $last) = walk_to_parent(\@parts, 1);
    my $flags = O_WRONLY | O_CREAT | O_NONBLOCK | ($req->{append} ? O_APPEND : O_TRUNC);
    my @before = lstat at($dir, $last);
    fail('LINK', "\"$path\" is a symbolic link; Sandpit does not follow links.") if @before && S_ISLNK($before[2]);
    fail('NOT_A_FILE', "\"$path\" is not a regular file.") if @before && !S_ISREG($before[2]);
    my $old = umask 0;
    my $fh = eval { open_at($dir, $last, $flags, $path, 0644) };
    umask $old;
    die $@ unless $fh;
    my @st = stat $fh;
    fail('NOT_A_FILE', "\"$path\" is not a regular file.") unless S_ISREG($st[2]);
    return { fh => $fh, keep => $req->{append} ? $st[7] : 0, path => $path };
  }
}

sub file_bytes {
  my ($dir, $budget) = @_;
  my $total = 0;
  opendir(my $dh, '/proc/self/fd/' . fileno($dir)) or return 0;
  for my $name (readdir $dh) {
    next if $name eq '.' || $name eq '..';
    return $total if --$$budget < 0;
    my @st = lstat at($dir, $name);
    next unless @st;
    if (S_ISREG($st[2])) { $total += $st[7] }
    elsif (S_ISDIR($st[2])) {
      my $sub;
      $total += file_bytes($sub, $budget) if sysopen($sub, at($dir, $name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    }
  }
  return $total;
}

sub usage {
  my ($req, $send) = @_;
  # statvfs through coreutils' stat -f: fragment size, blocks, free blocks, blocks available to users
  open(my $p, '-|', 'stat', '-f', '-c', '%S %b %f %a', workspace()) or fail('IO', "statvfs failed: $!");
  my $line = <$p> // '';
  close $p;
  my ($frsize, $blocks, $free, $avail) = split ' ', $line;
  fail('IO', 'statvfs of the workspace failed.') unless defined $avail;
  my $budget = 200_000;
  $send->({ type => 'fs-usage', id => SandpitJson::str($req->{id}), usedBytes => ($blocks - $free) * $frsize,
    totalBytes => $blocks * $frsize, freeBytes => $avail * $frsize, fileBytes => file_bytes(open_root(), \$budget) });
}

sub handle {
  my ($req, $send) = @_;
  my $op = $req->{op} // '';
  my $ok = eval {
    if ($op eq 'read') { read_file($req, $send) }
    elsif ($op eq 'list') { list_dir($req, $send) }
    elsif ($op eq 'write') { write_chunk($req, $send) }
    elsif ($op eq 'usage') { usage($req, $send) }
    else { fail('IO', "Unknown fs operation \"$op\".") }
    1;
  };
  return if $ok;
  my $err = ref $@ ? $@ : { code => 'IO', message => "$@" };
  $send->({ type => 'fs-error', id => SandpitJson::str($req->{id} // ''), code => $err->{code}, message => SandpitJson::str($err->{message}) });
}

1;
