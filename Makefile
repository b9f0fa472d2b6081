# trove — the two commands a fresh Debian 12 machine needs:
#   make run    install dependencies, build, start trove serve on 127.0.0.1:9200 (in memory)
#   make test   install dependencies, build, run every test (gcc, then clang + ASan/UBSan)
# CMake + Ninja do the building; this file only orchestrates.

DEBIAN_PACKAGES := build-essential cmake ninja-build pkg-config clang llvm libclang-rt-14-dev \
	libcmocka-dev unicode-data tzdata liblz4-dev libzstd-dev libxxhash-dev libstemmer-dev libjansson-dev \
	python3-pytest python3-requests python3-yaml python3-elasticsearch python3-psycopg2 zlib1g-dev libssl-dev openssl libargon2-dev libpq-dev postgresql nodejs \
	openjdk-17-jdk-headless liblucene4.10-java libxapian-dev libsqlite3-dev \
	dict-gcide dict-wn dict-devil perl-doc linux-doc-6.1 dict-foldoc dict-jargon fortunes
JOBS ?= $(shell nproc)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build deps run example test test-gcc test-asan fuzz bench clean

all: build

# Installs only what is missing, so a second run costs one dpkg query.
deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	@# npm: Debian's nodejs does not bring it; a nodejs that does conflicts with Debian's npm
	@command -v npm >/dev/null || $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm

build/build.ninja:
	cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: build/build.ninja
	ninja -C build -j $(JOBS)

run: deps build
	./build/trove serve --host 127.0.0.1 --port 9200

example: build
	./build/example_hello

test: deps test-gcc test-asan

test-gcc: build
	cd build && ctest --output-on-failure -j $(JOBS)

build-asan/build.ninja:
	CC=clang cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTROVE_SANITIZE=ON

test-asan: build-asan/build.ninja
	ninja -C build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j $(JOBS)

# libFuzzer binaries (clang): build-fuzz/fuzz_<target>; run one with
#   ./build-fuzz/fuzz_json_reader fuzz/corpus/json_reader -max_total_time=60
fuzz:
	CC=clang cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTROVE_FUZZ=ON -DTROVE_SANITIZE=ON
	ninja -C build-fuzz -j $(JOBS)

bench:
	cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release
	ninja -C build-bench -j $(JOBS)

clean:
	rm -rf build build-asan build-fuzz build-bench
