# regress/tap/t/003_visibility.pl: who sees an export's source text and
# target (issue 42, defect 7). A session exports as regress_pep_a, its
# source carrying a literal secret; while it is held at its publishing
# pause, a session of another role, regress_pep_b, finds the secret and the
# directory neither in the progress view nor in the function behind it,
# where a superuser's session (the control) sees both. (pg_stat_activity
# has neither to show: the held caller's query text is the pause's mark and
# its workers have ended.) Afterwards, in the exporting session, regress_pep_b (a pooler's SET
# ROLE to the next tenant) gets no summary from parallel_export_parquet_last(),
# where regress_pep_a gets its own.
use strict;
use warnings FATAL => 'all';

use FindBin;
use lib "$FindBin::RealBin/..";
use PepTap;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PepTap::node('visibility');
my $out = PostgreSQL::Test::Utils::tempdir;
my $secret = 'vis-secret-7d2e';
my $source = "SELECT id FROM pep_t WHERE s <> ''$secret''";

$node->safe_psql(
	'postgres', q{
CREATE ROLE regress_pep_a LOGIN;
CREATE ROLE regress_pep_b LOGIN;
GRANT SELECT ON pep_t TO regress_pep_a, regress_pep_b;
GRANT pg_write_server_files TO regress_pep_a, regress_pep_b;
SELECT format('GRANT EXECUTE ON FUNCTION %s TO regress_pep_a, regress_pep_b', p.oid::regprocedure)
FROM pg_proc AS p WHERE p.proname = 'parallel_export_parquet' \gexec
});

# What regress_pep_b's own session reads.
sub as_b
{
	my ($sql) = @_;
	return $node->safe_psql('postgres', $sql, extra_params => [ '-U', 'regress_pep_b' ]);
}

my $count_targets =
  "SELECT count(*) FROM parallel_export_parquet_progress_targets()"
  . " WHERE directory IS NOT NULL OR source IS NOT NULL";
my $count_view =
  "SELECT count(*) FROM parallel_export_parquet_progress"
  . " WHERE directory IS NOT NULL OR source IS NOT NULL";

# The export, as regress_pep_a, held at pause:publishing.
my $dir = "$out/held";
my $bg = $node->background_psql('postgres', on_error_stop => 0);
$bg->query_safe("SET parallel_export_parquet.fault_injection = 'pause:publishing'");
$bg->query_safe("SET ROLE regress_pep_a");
$bg->query_until(qr/started/,
	"\\echo started\nSELECT parallel_export_parquet('$source', '$dir', 2);\n");
my $pid = PepTap::wait_paused($node, 'publishing');
isnt($pid, '', 'premise: the export of regress_pep_a is held at pause publishing');

# Control: a superuser's session sees the directory and the secret.
is($node->safe_psql('postgres',
		"SELECT directory = '$dir' AND source LIKE '%$secret%'"
		  . " FROM parallel_export_parquet_progress WHERE pid = $pid"),
	't', 'control: a superuser sees the directory and the source in the progress view');

# Another role's session.
is(as_b($count_view), '0', 'regress_pep_b sees no directory or source in the progress view');
is(as_b($count_targets), '0',
	'regress_pep_b gets no directory or source from parallel_export_parquet_progress_targets()');

$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
$bg->query("SELECT 1");
like(PepTap::take_stderr($bg), qr/canceling statement due to user request/, 'the held export was cancelled');

# The summary afterwards, in the exporting session, across SET ROLE.
$bg->query_safe("RESET ROLE");
$bg->query_safe("RESET parallel_export_parquet.fault_injection");
$bg->query_safe("SET ROLE regress_pep_a");
is($bg->query_safe("SELECT parallel_export_parquet('$source', '$out/done', 2)"),
	$PepTap::ROWS, 'regress_pep_a exports');
is($bg->query_safe("SELECT source LIKE '%$secret%' FROM parallel_export_parquet_last()"),
	't', 'control: regress_pep_a sees its summary with the source');
$bg->query_safe("RESET ROLE");
$bg->query_safe("SET ROLE regress_pep_b");
is($bg->query_safe(
		"SELECT count(*) FROM parallel_export_parquet_last()"
		  . " WHERE source IS NOT NULL OR directory IS NOT NULL"),
	'0', "after SET ROLE regress_pep_b the session's summary shows neither source nor directory");

$bg->quit;
$node->stop;
done_testing();
