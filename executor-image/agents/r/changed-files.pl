# `done`'s files: the regular files under the workspace whose size or mtime changed during the execution,
# walked without following links or entering another file system mounted below the workspace.
package SandpitChangedFiles;
use strict;
use warnings;
use Fcntl qw(S_ISREG S_ISDIR);

my $MAX_ENTRIES = 20_000;
my $MAX_FILES = 1000;

sub mount_points {
  my %points;
  open(my $fh, '<', '/proc/self/mountinfo') or return \%points;
  while (my $line = <$fh>) {
    my @f = split ' ', $line;
    my $point = $f[4] // next;
    $point =~ s/\\([0-7]{3})/chr oct $1/ge;
    $points{$point} = 1;
  }
  close $fh;
  return \%points;
}

# relative path → "size mtime" of every regular file.
sub snapshot {
  my $root = $ENV{SANDPIT_WORKSPACE} || '/workspace';
  my $mounts = mount_points();
  my %files;
  my $budget = $MAX_ENTRIES;
  my @stack = ('');
  while (@stack && $budget > 0) {
    my $rel = pop @stack;
    my $abs = $rel eq '' ? $root : "$root/$rel";
    opendir(my $dh, $abs) or next;
    for my $name (readdir $dh) {
      next if $name eq '.' || $name eq '..';
      last if --$budget < 0;
      my $path = $rel eq '' ? $name : "$rel/$name";
      my @st = lstat "$root/$path";
      next unless @st;
      if (S_ISREG($st[2])) { $files{$path} = "$st[7] $st[9]" }
      elsif (S_ISDIR($st[2]) && !$mounts->{"$root/$path"}) { push @stack, $path }
    }
  }
  return \%files;
}

# ([{path, size}], truncated) of what differs from the snapshot taken before.
sub changed {
  my ($before) = @_;
  my $now = snapshot();
  my @paths = sort grep { !defined $before->{$_} || $before->{$_} ne $now->{$_} } keys %$now;
  my $truncated = @paths > $MAX_FILES;
  @paths = @paths[0 .. $MAX_FILES - 1] if $truncated;
  return ([map { { path => SandpitJson::str($_), size => (split ' ', $now->{$_})[0] } } @paths], $truncated);
}

1;
