# Stopping strays (PROTOCOL.md "straysKilled", `reap`): every process but the agent's own, init and the
# sessions of processes the host started (ppid 0, argv[3] "sandpit-process"), killed pass after pass.
package SandpitProcesses;
use strict;
use warnings;
use Time::HiRes qw(time sleep);

sub allowed {
  return 0 unless ($ENV{SANDPIT_KILL_STRAYS} // '') eq '1';
  return $$ == 1 || getppid() == 1;
}

# pid → { ppid, sid, state, argv } of every live process we can see.
sub processes {
  my %all;
  opendir(my $dh, '/proc') or return \%all;
  for my $pid (grep { /^[0-9]+$/ } readdir $dh) {
    open(my $fh, '<', "/proc/$pid/stat") or next;
    my $stat = <$fh> // '';
    close $fh;
    $stat =~ /\)\s+(\S)\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)/ or next;
    my @argv;
    if (open(my $c, '<', "/proc/$pid/cmdline")) { local $/; @argv = split /\0/, (<$c> // ''); close $c }
    $all{$pid} = { state => $1, ppid => $2, sid => $4, argv => \@argv };
  }
  return \%all;
}

# The pids to stop: not us, not init, not our own (the kernel), not a host-started session, not a zombie.
sub strays {
  my ($own) = @_;
  my $all = processes();
  my %spared_sessions = map { $_ => 1 } grep { $all->{$_}{ppid} == 0 && ($all->{$_}{argv}[3] // '') eq 'sandpit-process' } keys %$all;
  return grep {
    my $p = $all->{$_};
    $_ != $$ && $_ != 1 && !$own->{$_} && !$spared_sessions{$p->{sid}} && $p->{state} ne 'Z'
  } keys %$all;
}

# Kills the strays; returns how many there were.
sub kill_strays {
  my ($own) = @_;
  return 0 unless allowed();
  my %killed;
  my $deadline = time + 1;
  while (time < $deadline) {
    my @pids = strays($own);
    last unless @pids;
    for (@pids) { $killed{$_} = 1 if kill 'KILL', $_ }
    1 while waitpid(-1, POSIX::WNOHANG()) > 0;
    sleep 0.01;
  }
  return scalar keys %killed;
}

1;
