# shellcheck shell=bash
# tools/order_guard/cases.sh: what tools/order_guard.sh must report in SQL
# held by shell strings and here-documents (each line marked
# ORDER_GUARD_FINDS) and must not (every other line). Never run.

sql "SELECT array_agg(x ORDER BY 1) FROM t" # ORDER_GUARD_FINDS
ok $? "the server's own rows (an apostrophe in a message)" "$(sql "SELECT 1")"
sql "SELECT string_agg(pid::text, ' ' ORDER BY 1) FROM pg_stat_activity" # ORDER_GUARD_FINDS
wait_until "[[ \$(sql \"SELECT array_agg(pid ORDER BY 1) FROM pg_stat_activity\") == x ]]" # ORDER_GUARD_FINDS
out=$(sql "SELECT json_agg(x ORDER BY 1) FROM t") # ORDER_GUARD_FINDS
sql "CREATE FUNCTION f() RETURNS text[] LANGUAGE sql AS \$\$
	SELECT array_agg(a
		ORDER BY 1) FROM t \$\$" # ORDER_GUARD_FINDS
psql -X <<SQL
SELECT array_agg(x ORDER BY 2) FROM t; -- ORDER_GUARD_FINDS
SELECT a FROM t ORDER BY 1;
SQL
case "$x" in
cancel) sql "SELECT a FROM t ORDER BY 1" ;;
esac

# Fine: a query's own ORDER BY, in every kind of quoting.
sql "SELECT pid FROM pg_stat_activity ORDER BY 1"
x=$(sql "SELECT count(*) FROM t ORDER BY 1")
y="$(sql "SELECT a, b FROM t ORDER BY 2")"
z=$(printf '%s (' "$(sql 'SELECT a FROM t ORDER BY 1')")
echo "array_agg(" 'x ORDER BY 1)'
