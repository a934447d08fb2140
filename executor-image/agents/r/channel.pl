# The agent's channel (PROTOCOL.md "Channel"): stdio (the original fds 0 and 1, moved out of the way first)
# or a unix socket the host connects to, one connection at a time (a new one replaces the old one).
package SandpitChannel;
use strict;
use warnings;
use POSIX ();
use IO::Socket::UNIX;
use Socket qw(SOCK_STREAM);

sub open_channel {
  my $spec = $ENV{SANDPIT_CHANNEL} || 'stdio';
  my $self = bless { buffer => '', in => undef, out => undef, listener => undef, unconnected_since => undef }, __PACKAGE__;
  # SANDPIT_UNCONNECTED_EXIT_S: with no host connected that long, the agent ends (a warm sandbox left for a next
  # Sandpit that never came); 0 or unset: it waits for ever.
  my $exit_after = $ENV{SANDPIT_UNCONNECTED_EXIT_S} // '';
  $self->{exit_after} = $exit_after =~ /^[0-9]{1,9}$/ ? $exit_after + 0 : 0;
  if ($spec =~ /^socket:(.+)$/) {
    my $path = $1;
    unlink $path;
    $self->{listener} = IO::Socket::UNIX->new(Type => SOCK_STREAM, Local => $path, Listen => 4)
      or die "cannot listen on $path: $!\n";
  } else {
    open(my $in, '<&', \*STDIN) or die "dup stdin: $!\n";
    open(my $out, '>&', \*STDOUT) or die "dup stdout: $!\n";
    $self->{in} = $in;
    $self->{out} = $out;
  }
  # user code never sees the channel: fd 0 is /dev/null (fds 1 and 2 are set for the kernel when it starts)
  open(STDIN, '<', '/dev/null') or die "stdin: $!\n";
  return $self;
}

# True once no host has been connected for SANDPIT_UNCONNECTED_EXIT_S seconds (the agent then ends).
sub unconnected_too_long {
  my ($self) = @_;
  return $self->{exit_after} > 0 && defined $self->{unconnected_since} && time - $self->{unconnected_since} >= $self->{exit_after};
}

# The handles select() should watch.
sub handles { my ($self) = @_; return grep { defined } $self->{listener}, $self->{in} }

sub accept_connection {
  my ($self) = @_;
  my $conn = $self->{listener}->accept or return;
  close $self->{in} if $self->{in};
  $self->{in} = $self->{out} = $conn;
  $self->{buffer} = '';
  $self->{unconnected_since} = undef;
}

# Reads from $fh (the listener or the input); returns the complete lines, or undef when stdio closed.
sub read_lines {
  my ($self, $fh) = @_;
  if ($self->{listener} && $fh == $self->{listener}) { $self->accept_connection; return [] }
  my $n = sysread($fh, my $buf, 1 << 20);
  return [] if !defined $n && $!{EINTR};
  if (!$n) {
    return undef unless $self->{listener};
    close $fh;
    $self->{in} = $self->{out} = undef;
    $self->{unconnected_since} = time;
    return [];
  }
  $self->{buffer} .= $buf;
  my @lines;
  while ((my $nl = index($self->{buffer}, "\n")) >= 0) {
    push @lines, substr($self->{buffer}, 0, $nl);
    substr($self->{buffer}, 0, $nl + 1) = '';
  }
  return \@lines;
}

sub send {
  my ($self, $message) = @_;
  my $out = $self->{out} or return;
  my $line = SandpitJson::encode($message) . "\n";
  my $off = 0;
  while ($off < length $line) {
    my $n = syswrite($out, $line, length($line) - $off, $off);
    if (!defined $n) { next if $!{EINTR}; return }
    $off += $n;
  }
}

1;
