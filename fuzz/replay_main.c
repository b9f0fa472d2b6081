/*
 * replay_main.c — runs a libFuzzer target over every file of a corpus
 * directory without libFuzzer, so each corpus is replayed as a CTest test in
 * every build (gcc, clang with sanitizers). A crash or sanitizer report fails
 * the test; an empty or missing corpus is an error, so a replay can never
 * pass by having nothing to run.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
        fclose(f);
        free(buf);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    DIR *d = opendir(argv[1]);
    if (!d) {
        fprintf(stderr, "cannot open corpus %s\n", argv[1]);
        return 1;
    }
    int count = 0;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
        if (run_file(path) != 0) {
            fprintf(stderr, "cannot read %s\n", path);
            closedir(d);
            return 1;
        }
        count++;
    }
    closedir(d);
    if (count == 0) {
        fprintf(stderr, "empty corpus %s\n", argv[1]);
        return 1;
    }
    printf("replayed %d inputs from %s\n", count, argv[1]);
    return 0;
}
