# Stopping strays (PROTOCOL.md "straysKilled", `reap`): every process but the agent's own, init and the
# sessions of processes the host started (ppid 0, argv[3] "sandpit-process"), killed pass after pass; and the
# descendants of the R kernel, when an interrupt finds R waiting for a command (system()): kill_tree.
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

# pid → state letter of every descendant of $root.
sub descendants {
  my ($root) = @_;
  my $all = processes();
  my %children;
  push @{ $children{ $all->{$_}{ppid} } }, $_ for keys %$all;
  my %tree;
  my @todo = ($root);
  while (@todo) {
    for (@{ $children{ pop @todo } // [] }) {
      $tree{$_} = $all->{$_}{state};
      push @todo, $_;
    }
  }
  return \%tree;
}

# SIGKILLs every descendant of $root. The tree is frozen first (SIGSTOP, pass after pass, for at most 0.25 s,
# until no new process appears and each one has stopped or waits in vfork for a stopped child): a process
# killed while it forks would leave its new child to init, out of the tree, holding the command's pipes.
sub kill_tree {
  my ($root) = @_;
  my %seen;
  my $deadline = time + 0.25;
  while (1) {
    my $tree = descendants($root);
    my $still = 1;
    for my $pid (keys %$tree) {
      if (!$seen{$pid}) { $seen{$pid} = 1; kill 'STOP', $pid; $still = 0 }
      elsif ($tree->{$pid} !~ /^[TtDZX]$/) { $still = 0 }
    }
    last if $still || time >= $deadline;
    sleep 0.001;
  }
  kill 'KILL', $_ for keys %seen;
  return scalar keys %seen;
}

1;
