#!/usr/bin/env bash
# tools/image/hygiene.sh: what the built image holds, checked from inside a
# fresh container of it (tools/image/run.sh starts it with buildah run as
# root, so owners resolve against the image's own /etc/passwd). Prints TAP.
#
#   - no compiler, Maven, JDK or server headers: the final stage installs the
#     JRE only; no Maven repository, no build tree (/src, /out);
#   - no file whose owner or group the image does not know (a build user's);
#   - the extension's files where the image's pg_config says, owned by root
#     and writable by no one else, and no copy of them anywhere else;
#   - the /exports volume owned by the server's OS user;
#   - the project's LICENSE and NOTICE in /usr/share/doc/parallel-export-parquet,
#     the same as the repository's (run.sh binds those at /pep/LICENSE and
#     /pep/NOTICE), and every Debian package's copyright file in
#     /usr/share/doc/PACKAGE, where NOTICE says the licenses of the packages
#     the image adds are.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../tap.sh
source "$here/../tap.sh"

name=parallel_export_parquet
lib="$(pg_config --pkglibdir)"
ext="$(pg_config --sharedir)/extension"
installed="$(dpkg-query -W -f='${db:Status-Status} ${Package}\n' | sed -n 's/^installed //p')"
java_major="$(sed -n 's/^openjdk-\([0-9]*\)-jre-headless$/\1/p' <<<"$installed")"

echo "1..11"

o="$(grep -E '^(build-essential|(gcc|g\+\+|cpp|clang)(-[0-9]+)?|make|maven|openjdk-[0-9]+-jdk(-headless)?|postgresql-server-dev-[0-9]+|libpq-dev)$' <<<"$installed")"
is "$o" "" "no compiler, make, Maven, JDK or server headers installed"
o="$(for c in cc gcc c++ clang make mvn javac jar jlink; do command -v "$c"; done)"
is "$o" "" "no cc, gcc, c++, clang, make, mvn, javac, jar or jlink on the PATH"
[[ "$java_major" =~ ^[0-9]+$ && -x "/usr/lib/jvm/java-$java_major-openjdk-$(dpkg --print-architecture)/bin/java" ]]
ok $? "the headless JRE $java_major is installed" "JRE packages: $java_major"

o="$(find / -xdev \( -name .m2 -o -name '*.pom' -o -path /src -o -path /out \) -print 2>&1 | head -n 20)"
is "$o" "" "no Maven repository and no build tree in the image"
o="$(find / -xdev \( -nouser -o -nogroup \) -printf '%p %u:%g\n' 2>&1 | head -n 20)"
is "$o" "" "no file of an owner or group unknown to the image"

want="$(printf '%s\n' "$lib/$name.so" "$ext/$name.control" "$ext/$name.jar" "$ext/$name.aot" \
	"$ext/$name-snappyjava.so" "$ext/$name-brotli.so" "$ext"/"$name"--*.sql | sort)"
o=""
while read -r f; do
	[[ -f "$f" ]] || o+="$f: missing"$'\n'
done <<<"$want"
is "$o" "" "the library in pg_config --pkglibdir ($lib), the control file, SQL scripts, jar, AOT cache (JDK 25), snappy and brotli libraries in pg_config --sharedir ($ext)"
is "$(find / -xdev -name "*$name*" 2>&1 | sort)" "$want" "no other file of the extension anywhere in the image"
o="$(find $want \( ! -user root -o -perm /022 \) -printf '%p %u %m\n' 2>&1)"
is "$o" "" "the extension's files are owned by root and writable by root only"

is "$(stat -c '%U %a' /exports 2>&1)" "postgres 755" "/exports belongs to the server's OS user"

doc=/usr/share/doc/parallel-export-parquet
o=""
for f in LICENSE NOTICE; do
	if [[ ! -f "$doc/$f" ]]; then
		o+="$doc/$f: missing"$'\n'
	elif ! cmp -s "/pep/$f" "$doc/$f"; then
		o+="$doc/$f: not the repository's $f"$'\n'
	fi
done
is "$o" "" "the project's LICENSE and NOTICE in $doc, the same as the repository's"
o="$(while read -r p; do
	[[ -f "/usr/share/doc/${p%%:*}/copyright" ]] || echo "$p"
done <<<"$installed")"
is "$o" "" "every installed Debian package has its copyright file in /usr/share/doc/PACKAGE, as NOTICE says"

[[ "$nfail" -eq 0 ]]
