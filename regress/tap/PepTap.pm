# regress/tap/PepTap.pm: what the TAP tests in regress/tap/t share.
#
# Each test file makes its own cluster with PostgreSQL::Test::Cluster, so a
# crash or a restart in one cannot touch another's. This module gives that
# cluster with the extension created and a table to export, the names an
# export into a directory uses beside it (staging directory, lock file), and
# the wait for an export held at a pause point of the superuser-only fault
# injection setting (extension/src/testhooks/pep_fault.c): the paused caller's query text
# in pg_stat_activity becomes the pause's mark with wait event Extension, so
# a test waits for that row instead of sleeping.
package PepTap;

use strict;
use warnings FATAL => 'all';

use File::Basename qw(basename dirname);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;

our $ROWS = 20000;
our $PAUSE_MARK = 'parallel_export_parquet fault injection: pause';

# A started cluster NAME with the extension and table pep_t of $ROWS rows;
# EXTRA, if given, is appended to its postgresql.conf.
# Parallel workers as tools/cluster.sh allows them; TEMP_CONFIG (set by
# regress/tap/run.sh from PEP_EXTRA_CONF) is appended by the framework, so
# the split audit's settings reach these clusters too.
sub node
{
	my ($name, $extra) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf(
		'postgresql.conf', q{
max_worker_processes = 32
max_parallel_workers = 16
lc_messages = 'C'
});
	$node->append_conf('postgresql.conf', $extra) if defined $extra;
	$node->start;
	$node->safe_psql(
		'postgres', qq{
CREATE EXTENSION parallel_export_parquet;
CREATE TABLE pep_t AS SELECT g::bigint AS id, md5(g::text) AS s FROM generate_series(1, $ROWS) g;
ANALYZE pep_t;
});
	return $node;
}

sub staging_of { my ($d) = @_; return dirname($d) . '/.' . basename($d) . '.pep-staging'; }
sub lock_of { my ($d) = @_; return dirname($d) . '/.' . basename($d) . '.pep-lock'; }

# The part files under DIR (a target or a staging directory), recursively.
sub parts
{
	my ($dir) = @_;
	return () unless -d $dir;
	my @found;
	my @todo = ($dir);
	while (my $d = shift @todo)
	{
		opendir(my $dh, $d) or next;
		for my $e (readdir $dh)
		{
			next if $e eq '.' || $e eq '..';
			my $p = "$d/$e";
			if (-d $p) { push @todo, $p; }
			elsif ($e =~ /^part-.*\.parquet$/) { push @found, $p; }
		}
		closedir $dh;
	}
	return @found;
}

# Waits until the client backend running on NODE is held at pause:PHASE and
# returns its pid ('' if the wait timed out: the test's premise check fails).
sub wait_paused
{
	my ($node, $phase) = @_;
	my $where = "backend_type = 'client backend' AND query = '$PAUSE_MARK $phase'"
	  . " AND wait_event = 'Extension'";
	$node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM pg_stat_activity WHERE $where")
	  or return '';
	return $node->safe_psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE $where");
}

# What the background psql session BG printed on stderr since the last call,
# then forgotten: PostgreSQL 15's BackgroundPsql keeps stderr across queries,
# so one expected error would fail every later query_safe.
sub take_stderr
{
	my ($bg) = @_;
	my $err = $bg->{stderr};
	$bg->{stderr} = '';
	return $err;
}

# Parallel workers alive on NODE, described; '' if none.
sub live_workers
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		"SELECT coalesce(string_agg(pid || ' ' || left(query, 60), '; '), '')"
		  . " FROM pg_stat_activity WHERE backend_type = 'parallel worker'");
}

1;
