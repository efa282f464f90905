# tools/order_guard.awk: the lexer of tools/order_guard.sh (read it first).
#
# Reads each file whole, with the quoting of its language (by its name:
# .sql and .psql, .java, anything else shell), and prints "FILE:LINE: line"
# for every numeric literal that is a sort key of an ORDER BY inside
# parentheses that do not open a query.
#
# Every literal, dollar-quoted body and here-document is a context of its
# own, with its own parentheses: a "(" or ")" in a message or a regular
# expression cannot unbalance the SQL around it, and the SQL inside a
# string (a format() template, a function body) is read as SQL.
# A shell or Java string ends at its closing double quote whatever SQL
# quote is open in it, so an apostrophe in a message cannot swallow the
# code after it.

function flush() {
	if (file != "") lex()
	file = FILENAME
	buf = ""
}
{ if (FILENAME != file) flush(); buf = buf $0 "\n" }
END { flush() }

function isword(ch) { return ch ~ /[A-Za-z0-9_]/ }

# A new context (a literal, a body, a here-document) one level in.
function push(kind, tag) {
	lvl++
	kind_of[lvl] = kind
	tag_of[lvl] = tag
	depth[lvl] = 0
	estring[lvl] = 0
}

# The level of the shell or Java string that holds this context, or 0.
function host_string(    l) {
	if (lang == "sql") return 0
	for (l = lvl; l > 0; l--) if (kind_of[l] == "dq") return l
	return 0
}

# Does the "(" at position p open a query (or, in a shell script, a
# command substitution, a process substitution or arithmetic)?
function opens_query(p,    rest, q) {
	if (lang == "sh" && substr(buf, p - 1, 1) ~ /[$<>(]/) return 1
	q = p + 1
	for (;;) {
		rest = tolower(substr(buf, q, 12))
		if (match(rest, lang == "java" ? "^[\"+ \t\r\n]+" : "^[ \t\r\n]+")) {
			q += RLENGTH
			continue
		}
		break
	}
	if (substr(rest, 1, 1) == "(") return opens_query(q)
	return rest ~ /^(select|with|values|table)([^a-z0-9_]|$)/
}

# Text s without the joins of Java strings ("..." + "...") it starts with.
function unjoin(s) {
	if (lang == "java")
		while (match(s, /^[ \t\r\n]*"[ \t\r\n]*\+[ \t\r\n]*"/)) s = substr(s, RLENGTH + 1)
	return s
}

# Reports the sort key that starts at position p (after ORDER BY or a
# comma) if it is a numeric literal: "FILE:LINE: the line".
function check_key(p,    rest, after, skipped, s, e, text) {
	rest = unjoin(substr(buf, p, 120))
	p += length(substr(buf, p, 120)) - length(rest)
	if (!match(rest, /^[ \t\r\n]*[-+]?[ \t\r\n]*[0-9]+(\.[0-9]*)?/)) return
	after = tolower(unjoin(substr(rest, RSTART + RLENGTH)))
	if (after ~ /^[a-z0-9_.]/) return
	sub(/^[ \t\r\n]+/, "", after)
	if (after !~ /^(\)|,|::|$)/ && after !~ /^(asc|desc|nulls|using)([^a-z0-9_]|$)/) return
	match(rest, /^[ \t\r\n]*/)
	s = p + RLENGTH
	skipped = substr(buf, i, s - i)
	while (s > 1 && substr(buf, s - 1, 1) != "\n") s--
	e = index(substr(buf, s), "\n")
	text = substr(buf, s, e - 1)
	sub(/^[ \t]+/, "", text)
	printf "%s:%d: %s\n", file, line + gsub(/\n/, "", skipped), text
}

# Steps over the character a backslash at i escapes (a newline too).
function escaped() {
	if (substr(buf, ++i, 1) == "\n") line++
}

# A closing double quote at i in a shell or Java string, or in a SQL
# identifier.  Java's "..." + x + "..." goes on as one string.
function close_dq(    rest, skipped) {
	if (lang == "sql" && substr(buf, i + 1, 1) == "\"") { i++; return }
	if (lang == "java" && match(substr(buf, i + 1, 400), /^[ \t\r\n]*\+([^";{}]*\+)?[ \t\r\n]*"/)) {
		skipped = substr(buf, i + 1, RLENGTH)
		line += gsub(/\n/, "", skipped)
		i += RLENGTH
		return
	}
	lvl--
}

function lex(    n, c, k, m, d, rest, word, hd_pending, hd_dash, hd_level, nl, next_line) {
	lang = file ~ /\.(sql|psql)$/ ? "sql" : file ~ /\.java$/ ? "java" : "sh"
	n = length(buf)
	line = 1
	lvl = 0
	kind_of[0] = "top"
	depth[0] = 0
	hd_pending = ""
	hd_level = 0
	for (i = 1; i <= n; i++) {
		c = substr(buf, i, 1)
		k = kind_of[lvl]
		if (c == "\n") {
			line++
			if (lang == "sh" && lvl == 0) depth[0] = 0
			if (hd_pending != "" && lvl == 0) {
				push("heredoc", hd_pending)
				hd_level = lvl
				hd_pending = ""
			}
			if (hd_level > 0) {
				nl = index(substr(buf, i + 1), "\n")
				next_line = substr(buf, i + 1, nl - 1)
				if (hd_dash) sub(/^\t+/, "", next_line)
				if (next_line == tag_of[hd_level]) {
					lvl = hd_level - 1
					hd_level = 0
					i += nl - 1
				}
			}
			continue
		}
		# Inside literals: where they end, and SQL quotes in host strings.
		if (k == "sq") {
			if (c == "\\" && (estring[lvl] || host_string() > 0)) { escaped(); continue }
			if (c == "'") { lvl--; continue }
			if (c == "\"" && (d = host_string()) > 0) {
				# the host string ends, whatever SQL quote is open in it
				lvl = d
				close_dq()
				continue
			}
		} else if (k == "dq" || k == "bdq") {
			if (c == "\\" && lang != "sql") {
				if (substr(buf, i + 1, 1) == "\"") {
					if (k == "bdq") lvl--; else push("bdq", "")
				}
				escaped()
				continue
			}
			if (c == "\"") {
				if (k == "bdq") lvl = host_string()
				close_dq()
				continue
			}
			if (c == "'" && k == "dq" && lang != "sql") {
				push("sq", "")
				estring[lvl] = substr(buf, i - 1, 1) ~ /[Ee]/ && !isword(substr(buf, i - 2, 1))
				continue
			}
		} else if (k == "dollar" && c == "$" && substr(buf, i, length(tag_of[lvl])) == tag_of[lvl]) {
			i += length(tag_of[lvl]) - 1
			lvl--
			continue
		}
		# In code, SQL bodies and here-documents: comments, and the quotes
		# that open a literal.
		if (k == "top" || k == "dollar" || k == "heredoc") {
			if (lang == "sql" && substr(buf, i, 2) == "--" ||
			    lang == "java" && substr(buf, i, 2) == "//" ||
			    lang == "sh" && k == "top" && c == "#" && (i == 1 || substr(buf, i - 1, 1) ~ /[ \t\n;]/)) {
				while (i < n && substr(buf, i + 1, 1) != "\n") i++
				continue
			}
			if (lang != "sh" && substr(buf, i, 2) == "/*") {
				m = index(substr(buf, i + 2), "*/")
				word = substr(buf, i, m + 2)
				line += gsub(/\n/, "", word)
				i += m + 2
				continue
			}
			if (c == "\\" && lang == "sh") { escaped(); continue }
			if (c == "'") {
				if (lang == "java") {
					# a char literal
					i += substr(buf, i + 1, 1) == "\\" ? 3 : 2
					continue
				}
				push("sq", "")
				estring[lvl] = lang == "sql" && substr(buf, i - 1, 1) ~ /[Ee]/ && !isword(substr(buf, i - 2, 1))
				continue
			}
			if (c == "\"") { push("dq", ""); continue }
			if (lang == "sql" && c == "$" && !isword(substr(buf, i - 1, 1)) &&
			    match(substr(buf, i, 64), /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/)) {
				push("dollar", substr(buf, i, RLENGTH))
				i += RLENGTH - 1
				continue
			}
			if (lang == "sh" && k == "top" && substr(buf, i, 2) == "<<" && substr(buf, i + 2, 1) != "<" &&
			    substr(buf, i - 1, 1) != "<" && match(substr(buf, i, 80), /^<<-?[ \t]*["']?[A-Za-z_][A-Za-z0-9_]*["']?/)) {
				word = substr(buf, i, RLENGTH)
				hd_dash = word ~ /^<<-/
				sub(/^<<-?[ \t]*["']?/, "", word)
				sub(/["']$/, "", word)
				hd_pending = word
				i += RLENGTH - 1
				continue
			}
		}
		# Parentheses, statements and sort lists, in code and literals alike.
		if (c == "(") {
			d = ++depth[lvl]
			open_at[lvl, d] = i
			sorting[lvl, d] = 0
		} else if (c == ")") {
			if (depth[lvl] > 0) depth[lvl]--
		} else if (c == ";") {
			depth[lvl] = 0
		} else if (c == "," && (d = depth[lvl]) > 0 && sorting[lvl, d]) {
			check_key(i + 1)
		} else if ((c == "o" || c == "O") && !isword(substr(buf, i - 1, 1)) &&
		           match(tolower(substr(buf, i, 40)), /^order[ \t\r\n]+by[^a-z0-9_]/)) {
			m = RLENGTH - 1
			d = depth[lvl]
			if (d > 0 && !opens_query(open_at[lvl, d])) {
				# an aggregate, OVER or WITHIN GROUP sort list
				sorting[lvl, d] = 1
				check_key(i + m)
			}
			word = substr(buf, i, m)
			line += gsub(/\n/, "", word)
			i += m - 1
		}
	}
}
