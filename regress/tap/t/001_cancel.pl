# regress/tap/t/001_cancel.pl: a cancel from a second session of an export
# held at its publishing pause (staging complete with _SUCCESS, before the
# rename) leaves nothing at the target or in staging, and the same export
# without the cancel publishes.
use strict;
use warnings FATAL => 'all';

use FindBin;
use lib "$FindBin::RealBin/..";
use PepTap;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PepTap::node('cancel');
my $out = PostgreSQL::Test::Utils::tempdir;
my $rows = $PepTap::ROWS;

# Control: the same export, no fault, publishes.
my $control = "$out/control";
is($node->safe_psql('postgres', "SELECT parallel_export_parquet('pep_t', '$control', 2)"),
	$rows, 'control: the export returns every row');
ok(-f "$control/_SUCCESS" && PepTap::parts($control) >= 1
	  && !-e PepTap::staging_of($control) && !-e PepTap::lock_of($control),
	'control: the target holds _SUCCESS and parts, no staging or lock is left');

# The export under test, held at pause:publishing in a background session.
my $dir = "$out/cancelled";
my $staging = PepTap::staging_of($dir);
my $bg = $node->background_psql('postgres', on_error_stop => 0);
$bg->query_safe("SET parallel_export_parquet.fault_injection = 'pause:publishing'");
$bg->query_until(qr/started/,
	"\\echo started\nSELECT parallel_export_parquet('pep_t', '$dir', 2);\n");
my $pid = PepTap::wait_paused($node, 'publishing');

# Premise: it is mid-flight, its staging complete and nothing published.
isnt($pid, '', 'premise: pg_stat_activity shows the caller held at pause publishing');
is($node->safe_psql('postgres',
		"SELECT phase || ' ' || workers_launched || ' ' || rows_written"
		  . " FROM parallel_export_parquet_progress WHERE pid = '$pid'"),
	"publishing 2 $rows",
	'premise: the progress view shows it publishing, every row written by 2 workers');
ok(-f "$staging/_SUCCESS" && PepTap::parts($staging) >= 1 && !-e $dir,
	'premise: staging holds _SUCCESS and parts, the target does not exist');

# The cancel, from this second session.
is($node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)"), 't',
	'the second session cancels the caller');
my ($after) = $bg->query("SELECT 'session alive'");
like(PepTap::take_stderr($bg), qr/canceling statement due to user request/,
	'the exporting session got the cancel');
is($after, 'session alive', 'the exporting session goes on');

# Result: nothing anywhere.
ok(!-e $dir, 'the target does not exist');
ok(!-e $staging, 'no staging directory is left');
ok(!-e PepTap::lock_of($dir), 'no lock file is left');
is(PepTap::live_workers($node), '', 'no parallel worker is left');
is($bg->query("SELECT count(*) FROM parallel_export_parquet_last()"
		  . " WHERE directory = '$dir'"),
	'0', 'parallel_export_parquet_last() does not claim the cancelled export');

# The same export into the same directory then publishes.
$bg->query_safe("RESET parallel_export_parquet.fault_injection");
is($bg->query_safe("SELECT parallel_export_parquet('pep_t', '$dir', 2)"),
	$rows, 'a retry into the same directory publishes every row');
ok(-f "$dir/_SUCCESS" && !-e $staging, 'the retry left _SUCCESS and no staging');

$bg->quit;
$node->stop;
done_testing();
