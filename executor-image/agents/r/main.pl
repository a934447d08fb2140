# Sandpit's R agent (PROTOCOL.md): this process owns the channel, the captured output, workspace files and
# stray processes; the R kernel (kernel.R) runs user code in a process of its own, so files and `fs`
# requests are served while R is busy, and nothing user code does to its descriptors reaches the channel.
use strict;
use warnings;
use POSIX ();
use IO::Select;
use Time::HiRes qw(time);

my $DIR;
BEGIN { ($DIR = $0) =~ s{/[^/]*$}{}; $DIR = '.' if $DIR eq $0; $DIR = POSIX::getcwd() . "/$DIR" unless $DIR =~ m{^/} }
require "$DIR/json-lines.pl";
require "$DIR/channel.pl";
require "$DIR/output-capture.pl";
require "$DIR/workspace-files.pl";
require "$DIR/processes.pl";
require "$DIR/changed-files.pl";

$SIG{PIPE} = 'IGNORE';
umask 022;
# The hello names what this agent runs: R, whatever the session asked for (the host refuses a session of another language)
my $LANGUAGE = 'r';
my $channel = SandpitChannel::open_channel();
my ($kernel, $version);
my (@queue, $current);

sub send_message { $channel->send($_[0]) }

sub from_hex { my ($h) = @_; return $h eq '-' ? '' : pack('H*', $h) }

# Starts R with fd 0 /dev/null, fds 1 and 2 pipes we read, fd 3 its requests and fd 4 its replies.
sub start_kernel {
  pipe(my $out_r, my $out_w) or die "pipe: $!\n";
  pipe(my $err_r, my $err_w) or die "pipe: $!\n";
  pipe(my $req_r, my $req_w) or die "pipe: $!\n";
  pipe(my $rep_r, my $rep_w) or die "pipe: $!\n";
  my $pid = fork // die "fork: $!\n";
  if ($pid == 0) {
    my $i = 0;
    # first above every fd in use, then into place: a pipe may already sit on 3 or 4
    my @high = map { my $n = 20 + $i++; defined POSIX::dup2(fileno $_, $n) or POSIX::_exit(126); $n } $out_w, $err_w, $req_r, $rep_w;
    for (0 .. 3) { defined POSIX::dup2($high[$_], $_ + 1) or POSIX::_exit(126) }
    POSIX::close($_) for @high;
    # every other fd of ours is close-on-exec (perl sets it above fd 2)
    POSIX::close($_) for grep { $_ > 4 } map { fileno $_ } $out_r, $out_w, $err_r, $err_w, $req_r, $req_w, $rep_r, $rep_w;
    $ENV{SANDPIT_AGENT_DIR} = $DIR;
    # no ~/.Rprofile, ./.Rprofile or ~/.Renviron: HOME is the workspace, where a file written there would otherwise run unasked
    { exec 'R', '--no-echo', '--no-save', '--no-restore', '--no-readline', '--no-init-file', '--no-environ', '-f', "$DIR/kernel.R" };
    POSIX::_exit(127);
  }
  close $_ for $out_w, $err_w, $req_r, $rep_w;
  $req_w->autoflush(1);
  $kernel = { pid => $pid, requests => $req_w, replies => $rep_r, buffer => '',
    out => SandpitCapture->new('stdout', $out_r), err => SandpitCapture->new('stderr', $err_r) };
}

sub kernel_lines {
  my $n = sysread($kernel->{replies}, my $buf, 65536);
  return undef unless $n;
  $kernel->{buffer} .= $buf;
  my @lines;
  while ((my $nl = index($kernel->{buffer}, "\n")) >= 0) {
    push @lines, substr($kernel->{buffer}, 0, $nl);
    substr($kernel->{buffer}, 0, $nl + 1) = '';
  }
  return \@lines;
}

sub start_next {
  # an execution interrupted while it waited ends in its turn, without running
  while (!$current && @queue && $queue[0]{cancelled}) {
    my $req = shift @queue;
    send_message({ type => 'done', id => SandpitJson::str($req->{id}), status => 'interrupted', durationMs => 0,
      dropped => { stdout => 0, stderr => 0 }, files => [], filesTruncated => \0, straysKilled => 0 });
  }
  return if $current || !@queue;
  my $req = shift @queue;
  my $marker = sprintf('%ssandpit-sync-%08x%08x', "\x1e", int(rand(2**32)), int(rand(2**32)));
  my $limit = defined $req->{outputLimit} ? $req->{outputLimit} : 1 << 20;
  $current = { id => $req->{id}, started => time, files => SandpitChangedFiles::snapshot(), messages => [], status => undef };
  $kernel->{out}->begin($marker, $limit);
  $kernel->{err}->begin($marker, $limit);
  my $code = $req->{code} // '';
  my $hex = $code eq '' ? '-' : unpack('H*', $code);
  print { $kernel->{requests} } "exec " . unpack('H*', $marker) . " $hex\n";
}

sub finish_if_ready {
  return unless $current && defined $current->{status} && $kernel->{out}{synced} && $kernel->{err}{synced};
  my $id = SandpitJson::str($current->{id});
  send_message($_) for @{ $current->{messages} };
  my $strays = SandpitProcesses::kill_strays({ $kernel->{pid} => 1 });
  my ($files, $truncated) = SandpitChangedFiles::changed($current->{files});
  send_message({ type => 'done', id => $id, status => $current->{status}, durationMs => sprintf('%.1f', 1000 * (time - $current->{started})),
    dropped => { stdout => $kernel->{out}{dropped}, stderr => $kernel->{err}{dropped} },
    files => $files, filesTruncated => \($truncated ? 1 : 0), straysKilled => $strays });
  $_->{marker} = undef for $kernel->{out}, $kernel->{err};
  $current = undef;
  start_next();
}

sub on_kernel_reply {
  my ($line) = @_;
  my ($kind, @f) = split / /, $line;
  if ($kind eq 'ready') { $version = from_hex($f[0]); return }
  return unless $current;
  my $id = SandpitJson::str($current->{id});
  if ($kind eq 'error') {
    push @{ $current->{messages} }, { type => 'error', id => $id, name => SandpitJson::str(from_hex($f[0])),
      value => SandpitJson::str(SandpitJson::repair_utf8(from_hex($f[1]))), traceback => SandpitJson::str(SandpitJson::repair_utf8(from_hex($f[2]))) };
  } elsif ($kind eq 'display') {
    my $path = from_hex($f[0]);
    if (open(my $fh, '<:raw', $path)) {
      local $/;
      my $png = <$fh>;
      close $fh;
      push @{ $current->{messages} }, { type => 'display', id => $id, mime => 'image/png', encoding => 'base64', data => SandpitJson::base64_encode($png // '') };
    }
  } elsif ($kind eq 'finished') {
    $current->{status} = $f[0] =~ /^(ok|error|interrupted)$/ ? $f[0] : 'error';
    # its command was killed for an interrupt: the run was cut short, whatever R made of it
    $current->{status} = 'interrupted' if $current->{interrupted} && $current->{interrupted}{killed};
  }
}

# The kernel ended (quit(), a crash, a kill): the run in progress fails in plain words and R starts again.
sub on_kernel_exit {
  waitpid($kernel->{pid}, 0);
  my $how = $? & 127 ? 'was killed by signal ' . ($? & 127) : 'exited with status ' . ($? >> 8);
  if ($current) {
    my $id = SandpitJson::str($current->{id});
    $kernel->{$_}->pump(\&send_message, $current->{id}) for qw(out err);
    send_message($_) for @{ $current->{messages} };
    send_message({ type => 'error', id => $id, name => 'KernelExited', value => SandpitJson::str("R $how; its variables are lost and a new R session was started."), traceback => '' });
    send_message({ type => 'done', id => $id, status => 'error', durationMs => sprintf('%.1f', 1000 * (time - $current->{started})),
      dropped => { stdout => $kernel->{out}{dropped}, stderr => $kernel->{err}{dropped} }, files => [], filesTruncated => \0,
      straysKilled => SandpitProcesses::kill_strays({}) });
    $current = undef;
  }
  close $_ for $kernel->{requests}, $kernel->{replies}, $kernel->{out}{fh}, $kernel->{err}{fh};
  start_kernel();
  wait_ready();
  start_next();
}

sub wait_ready {
  my $deadline = time + 60;
  my $sel = IO::Select->new($kernel->{replies});
  while (!defined $version || $version eq '') {
    die "the R kernel did not start within 60 s\n" if time > $deadline;
    next unless $sel->can_read($deadline - time);
    my $lines = kernel_lines() or die "the R kernel exited while starting\n";
    on_kernel_reply($_) for @$lines;
  }
}

# An interrupt of the running execution: INT to R at once and every 0.25 s while the run goes on (for at most a
# minute; kernel.R drops one that comes late, after the run). R waiting for a command (system()) ignores INT:
# from 0.5 s on, at each step, the command's process tree is killed (where strays may be killed, from the second
# time on every stray: a process that left the tree), and the run ends interrupted however R finishes it.
sub interrupt_pending { return $current && $current->{interrupted} && !defined $current->{status} }

sub push_interrupt {
  return unless interrupt_pending();
  my $i = $current->{interrupted};
  my $now = time;
  return if $now - $i->{at} > 60 || $now - $i->{sent} < 0.25;
  $i->{sent} = $now;
  kill 'INT', $kernel->{pid};
  return if $now - $i->{at} < 0.5;
  if ($i->{killed} && SandpitProcesses::allowed()) { SandpitProcesses::kill_strays({ $kernel->{pid} => 1 }) }
  else { SandpitProcesses::kill_tree($kernel->{pid}) }
  $i->{killed} = 1;
}

sub on_request {
  my ($line) = @_;
  return if $line =~ /^\s*$/;
  my $req = eval { SandpitJson::decode($line) };
  return unless ref $req eq 'HASH' && defined $req->{type};
  my $type = $req->{type};
  if ($type eq 'hello') {
    send_message({ type => 'hello', id => SandpitJson::str($req->{id} // ''), language => $LANGUAGE, version => SandpitJson::str($version), pid => $$, protocol => 1 });
  } elsif ($type eq 'execute') {
    return unless defined $req->{id} && !ref $req->{id} && defined $req->{code} && !ref $req->{code};
    push @queue, $req;
    start_next();
  } elsif ($type eq 'interrupt') {
    if ($current && ($req->{id} // '') eq $current->{id} && !defined $current->{status}) {
      $current->{interrupted} //= { at => time, sent => 0, killed => 0 };
      push_interrupt();
    }
    else { $_->{cancelled} = 1 for grep { $_->{id} eq ($req->{id} // '') } @queue; start_next() }
  } elsif ($type eq 'fs') {
    SandpitFiles::handle($req, \&send_message);
  } elsif ($type eq 'reap') {
    send_message({ type => 'reaped', id => SandpitJson::str($req->{id} // ''), killed => SandpitProcesses::kill_strays({ $kernel->{pid} => 1 }) });
  }
}

start_kernel();
wait_ready();
while (1) {
  my $sel = IO::Select->new($channel->handles, $kernel->{replies}, $kernel->{out}{fh}, $kernel->{err}{fh});
  my @ready = $sel->can_read(interrupt_pending() ? 0.1 : 1);
  for my $fh (@ready) {
    if ($fh == $kernel->{out}{fh} || $fh == $kernel->{err}{fh}) {
      my $capture = $fh == $kernel->{out}{fh} ? $kernel->{out} : $kernel->{err};
      $capture->pump(\&send_message, $current ? $current->{id} : undef);
    } elsif ($fh == $kernel->{replies}) {
      my $lines = kernel_lines();
      if (!$lines) { on_kernel_exit(); last }
      on_kernel_reply($_) for @$lines;
    } else {
      my $lines = $channel->read_lines($fh);
      exit 0 unless defined $lines;
      on_request($_) for @$lines;
    }
  }
  push_interrupt();
  finish_if_ready();
  exit 0 if $channel->unconnected_too_long;
}
