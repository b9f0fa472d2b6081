# trove — the two commands a fresh Debian 12 machine needs:
#   make run    install what building and running need, build, start trove serve on 127.0.0.1:9200 (in memory)
#   make test   install what the tests need, build, run every test (gcc, then clang + ASan/UBSan, then
#               clang + TSan on the tests that use threads)
# and, for the full-text benchmark's peers and corpora (JDK, Lucene, Xapian, SQLite, texts):
#   make bench-smoke  its harness on a few hundred documents (CI runs it after make test)
# CMake + Ninja do the building; this file only orchestrates.

RUN_PACKAGES := build-essential cmake ninja-build pkg-config unicode-data publicsuffix liblucene4.10-java libicu-dev tzdata liblz4-dev libzstd-dev \
	libxxhash-dev libstemmer-dev zlib1g-dev libssl-dev libargon2-dev libpq-dev libpcre2-dev \
	libmecab-dev mecab-ipadic-utf8 icu-devtools
# tests/analysis (trove's _analyze against Lucene 4.10's): the JDK, the Lucene and ICU4J jars, and the
# packages whose translations, ISO names and dictionary make its corpus
ANALYSIS_PACKAGES := openjdk-17-jdk-headless liblucene4.10-java libicu4j-java iso-codes libglib2.0-data \
	shared-mime-info libc-l10n hunspell-en-us
TEST_PACKAGES := $(RUN_PACKAGES) clang llvm libclang-rt-14-dev libcmocka-dev openssl postgresql nodejs \
	python3-pytest python3-requests python3-yaml python3-elasticsearch python3-psycopg2 $(ANALYSIS_PACKAGES)
BENCH_PACKAGES := $(TEST_PACKAGES) libjansson-dev libxapian-dev \
	libsqlite3-dev dict-gcide dict-wn dict-devil perl-doc linux-doc-6.1 dict-foldoc dict-jargon fortunes wrk valgrind
JOBS ?= $(shell nproc)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build deps deps-run deps-test deps-bench run example test test-gcc test-asan test-tsan fuzz bench \
	bench-smoke clean

all: build

# Installs only what is missing (PACKAGES), so a second run costs one dpkg query.
define install
	@missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
endef

deps-run:
	$(call install,$(RUN_PACKAGES))

deps: deps-test
deps-test:
	$(call install,$(TEST_PACKAGES))
	@# npm: Debian's nodejs does not bring it; a nodejs that does conflicts with Debian's npm
	@command -v npm >/dev/null || $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm

deps-bench:
	$(call install,$(BENCH_PACKAGES))
	@command -v npm >/dev/null || $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm

build/build.ninja:
	cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: build/build.ninja
	ninja -C build -j $(JOBS)

run: deps-run build
	./build/trove serve --host 127.0.0.1 --port 9200

example: build
	./build/example_hello

test: deps-test test-gcc test-asan test-tsan

test-gcc: build
	cd build && ctest --output-on-failure -j $(JOBS) -LE bench

build-asan/build.ninja:
	CC=clang cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTROVE_SANITIZE=ON

test-asan: build-asan/build.ninja
	ninja -C build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j $(JOBS) -LE bench

build-tsan/build.ninja:
	CC=clang cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTROVE_TSAN=ON

# The tests labelled threads, under ThreadSanitizer (halt on the first report).
test-tsan: build-tsan/build.ninja
	ninja -C build-tsan -j $(JOBS)
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
		ctest --output-on-failure -j $(JOBS) -L threads

bench-smoke: deps-bench build
	cd build && ctest --output-on-failure -L bench

# libFuzzer binaries (clang): build-fuzz/fuzz_<target>; run one with
#   ./build-fuzz/fuzz_json_reader fuzz/corpus/json_reader -max_total_time=60
fuzz:
	CC=clang cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTROVE_FUZZ=ON -DTROVE_SANITIZE=ON
	ninja -C build-fuzz -j $(JOBS)

bench:
	cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release
	ninja -C build-bench -j $(JOBS)

clean:
	rm -rf build build-asan build-tsan build-fuzz build-bench
