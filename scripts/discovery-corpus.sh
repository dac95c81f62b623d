#!/usr/bin/env bash
# Builds the function-discovery evaluation corpus: real C projects that
# Warden did not write (Lua 5.4 and zlib, fetched as Debian source
# packages), compiled here with gcc and, when installed, clang, at -O0,
# -O2, -O3 and -Os, PIE and not, all without unwind tables. Each build
# leaves three files:
#
#   NAME.full   unstripped: its FUNC symbols are the truth
#   NAME.strip  strip --strip-all: only the C runtime's start-up objects
#               still carry .eh_frame entries (the case where a file
#               "has metadata" that covers almost none of its code)
#   NAME.noeh   stripped and .eh_frame/.eh_frame_hdr removed outright
#
# and a line in manifest.tsv (project, build, the three paths). Lua is
# the corpus discovery is tuned on; zlib is held out.
#
# Usage: scripts/discovery-corpus.sh [DIR]
# DIR defaults to $WARDEN_DISCOVERY_CORPUS, else
# ${XDG_CACHE_HOME:-~/.cache}/warden-discovery-corpus. The script is a
# cache: sources are fetched once, and a build whose files exist (for the
# same compiler version) is not made again. binview's
# TestDiscoveryCorpus reads the manifest, and skips when there is none.
set -euo pipefail

dir=${1:-${WARDEN_DISCOVERY_CORPUS:-${XDG_CACHE_HOME:-$HOME/.cache}/warden-discovery-corpus}}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
jobs=${JOBS:-2}

need() { command -v "$1" >/dev/null || { echo "discovery-corpus: $1 is not installed" >&2; exit 1; }; }
need gcc
need strip
need objcopy
need apt-get

# fetch PACKAGE: the Debian source package's upstream tarball, unpacked
# into $dir/src, with an apt state of its own so that the system's
# sources list is left alone.
fetch() {
	local pkg=$1 apt=$dir/apt
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/dl" "$dir/src"
	if ! ls "$apt/dl/${pkg}"_*.orig.tar.* >/dev/null 2>&1; then
		cat >"$apt/src.sources" <<-EOF
			Types: deb-src
			URIs: http://deb.debian.org/debian
			Suites: bookworm
			Components: main
			Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		EOF
		local o=(-o APT::Sandbox::User=root -o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt" -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache")
		if ! ls "$apt"/lists/*Sources* >/dev/null 2>&1; then
			apt-get "${o[@]}" -qq update
		fi
		(cd "$apt/dl" && apt-get "${o[@]}" -qq source --download-only "$pkg")
	fi
	local tarball
	tarball=$(ls "$apt/dl/${pkg}"_*.orig.tar.* | head -1)
	local stamp=$dir/src/.$pkg
	if [ ! -e "$stamp" ]; then
		tar -xf "$tarball" -C "$dir/src"
		touch "$stamp"
	fi
}

fetch lua5.4
fetch zlib
lua=$(ls -d "$dir"/src/lua-5.4.*/src | head -1)
zlib=$(ls -d "$dir"/src/zlib-*/ | head -1)

compilers=(gcc)
command -v clang >/dev/null && compilers+=(clang)

# build PROJECT CC OPT PIE: one build and its stripped copies.
build() {
	local project=$1 cc=$2 opt=$3 pie=$4
	local ver out name
	ver=$($cc -dumpversion)
	name=$cc$ver$opt-$pie
	out=$dir/$project/$name
	mkdir -p "$dir/$project"
	if [ ! -s "$out.noeh" ]; then
		local flags=("-$opt" -fno-asynchronous-unwind-tables -fno-unwind-tables -w)
		if [ "$pie" = pie ]; then flags+=(-fPIE -pie); else flags+=(-fno-pie -no-pie); fi
		local srcs=() libs=()
		case $project in
		lua)
			for f in "$lua"/*.c; do
				[ "$(basename "$f")" = luac.c ] || srcs+=("$f")
			done
			flags+=(-DLUA_USE_LINUX -I"$lua")
			libs=(-lm -ldl)
			;;
		zlib)
			srcs=("$zlib"/test/minigzip.c)
			for f in adler32 compress crc32 deflate gzclose gzlib gzread gzwrite infback inffast inflate inftrees trees uncompr zutil; do
				srcs+=("$zlib/$f.c")
			done
			flags+=(-I"$zlib")
			;;
		esac
		$cc "${flags[@]}" -o "$out.full.tmp" "${srcs[@]}" "${libs[@]}"
		strip --strip-all -o "$out.strip" "$out.full.tmp"
		objcopy --strip-all --remove-section .eh_frame --remove-section .eh_frame_hdr "$out.full.tmp" "$out.noeh.tmp"
		mv "$out.full.tmp" "$out.full"
		mv "$out.noeh.tmp" "$out.noeh"
	fi
	printf '%s\t%s\t%s\t%s\t%s\n' "$project" "$name" "$out.full" "$out.strip" "$out.noeh"
}

tasks=()
for project in lua zlib; do
	for cc in "${compilers[@]}"; do
		for opt in O0 O2 O3 Os; do
			for pie in pie nopie; do
				tasks+=("$project $cc $opt $pie")
			done
		done
	done
done

export -f build
export dir lua zlib
printf '%s\n' "${tasks[@]}" | xargs -P "$jobs" -L 1 bash -c 'build "$@"' _ | sort >"$dir/manifest.tsv.tmp"
mv "$dir/manifest.tsv.tmp" "$dir/manifest.tsv"
echo "discovery-corpus: $(wc -l <"$dir/manifest.tsv") builds in $dir" >&2
