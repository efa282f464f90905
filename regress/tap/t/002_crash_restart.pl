# regress/tap/t/002_crash_restart.pl: an export whose caller dies at its
# publishing pause (staging complete with _SUCCESS, before the rename) by
# SIGKILL, which makes the postmaster reinitialize every process, or by an
# immediate shutdown and a new start. Neither leaves a published file; the
# dead export's staging stays until the next export into the target, which
# can take its lock, sweeps it and publishes; then no staging directory,
# lock or stray part is left.
use strict;
use warnings FATAL => 'all';

use FindBin;
use lib "$FindBin::RealBin/..";
use PepTap;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# The framework turns restart_after_crash off for its clusters; the
# crash restart is what this test is about.
my $node = PepTap::node('crash', 'restart_after_crash = on');
my $out = PostgreSQL::Test::Utils::tempdir;
my $rows = $PepTap::ROWS;

# Control: an export into a fresh directory publishes without any of this.
is($node->safe_psql('postgres', "SELECT parallel_export_parquet('pep_t', '$out/control', 2)"),
	$rows, 'control: an export publishes');

# Holds an export into DIR at pause:publishing; returns the session and the pid.
sub hold
{
	my ($dir) = @_;
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	$bg->query_safe("SET parallel_export_parquet.fault_injection = 'pause:publishing'");
	$bg->query_until(qr/started/,
		"\\echo started\nSELECT parallel_export_parquet('pep_t', '$dir', 2);\n");
	return ($bg, PepTap::wait_paused($node, 'publishing'));
}

# What a death at publishing left, then the next export into DIR.
sub after_death
{
	my ($what, $dir) = @_;
	my $staging = PepTap::staging_of($dir);
	ok(!-e $dir, "$what: nothing is published at the target");
	ok(-f "$staging/_SUCCESS" && PepTap::parts($staging) >= 1,
		"$what: premise: the dead export's staging, parts and _SUCCESS, is still there");
	my $offset = -s $node->logfile;
	# One session: parallel_export_parquet_last() is the session's own.
	my ($got, $listed) = split /\n/,
	  $node->safe_psql('postgres',
		"SELECT parallel_export_parquet('pep_t', '$dir', 2); SELECT parts FROM parallel_export_parquet_last()");
	is($got, $rows, "$what: the next export into the target publishes every row");
	ok($node->log_contains(qr/removed staging directory "\Q$staging\E"/, $offset),
		"$what: that export swept the dead staging directory and logged it");
	ok(!-e $staging && !-e PepTap::lock_of($dir),
		"$what: no staging directory or lock file is left");
	is(scalar(PepTap::parts($dir)), $listed,
		"$what: the target holds exactly the new export's $listed parts");
	ok(-f "$dir/_SUCCESS", "$what: the target holds _SUCCESS");
}

# 1. SIGKILL of the caller's backend: a crash restart of the whole server.
my $dir = "$out/sigkill";
my ($bg, $pid) = hold($dir);
isnt($pid, '', 'sigkill: premise: the caller is held at pause publishing');
my $offset = -s $node->logfile;
is(kill('KILL', $pid), 1, 'sigkill: the caller backend was sent SIGKILL');
# A connection attempt only (no query): psql gives up before reading its
# input while the server restarts.
ok($node->poll_query_until('postgres', undef, ''), 'sigkill: the server accepts connections again');
# PostgreSQL 18 names the process by its type ("client backend (PID
# ...)"), earlier versions as "server process (PID ...)".
ok($node->log_contains(qr/ \(PID $pid\) was terminated by signal 9/, $offset)
	  && $node->log_contains(qr/all server processes terminated; reinitializing/, $offset),
	'sigkill: premise: the postmaster reinitialized after the kill');
eval { $bg->quit };
after_death('sigkill', $dir);

# 2. An immediate shutdown while held, then a new start: every process ends
# at once and the server comes back from crash recovery.
$dir = "$out/immediate";
($bg, $pid) = hold($dir);
isnt($pid, '', 'immediate: premise: the caller is held at pause publishing');
$node->stop('immediate');
eval { $bg->quit };
$node->start;
after_death('immediate', $dir);

$node->stop;
done_testing();
