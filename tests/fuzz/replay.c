/*
 * replay.c: a main() for the fuzz targets without libFuzzer: every file
 * named (or found in a folder named) is run once through
 * LLVMFuzzerTestOneInput.  `make check` replays the seeds and the regression
 * inputs (crashes found by fuzzing) this way, under gcc, ASan and valgrind.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "fuzz.h"
#include "pathutil.h"

static size_t replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	mpsfix_buf b = MPSFIX_BUF_INIT;
	char chunk[65536];
	size_t n;

	if (!f) {
		perror(path);
		exit(2);
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		mpsfix_buf_add(&b, chunk, n);
	fclose(f);
	/* an exact copy: reading past the input's end is caught, as with libFuzzer */
	char *exact = mpsfix_xmalloc(b.len ? b.len : 1);
	if (b.len)
		memcpy(exact, b.data, b.len);
	LLVMFuzzerTestOneInput((const uint8_t *)exact, b.len);
	free(exact);
	mpsfix_buf_release(&b);
	return 1;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t replay(const char *path)
{
	struct stat st;
	ARRAY(char *) names = {0};
	struct dirent *e;
	size_t count = 0;
	DIR *d;

	if (stat(path, &st) < 0) {
		perror(path);
		exit(2);
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	if (!(d = opendir(path))) {
		perror(path);
		exit(2);
	}
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			ARRAY_PUSH(&names, mpsfix_path_join(path, e->d_name));
	closedir(d);
	if (names.len > 1)
		qsort(names.items, names.len, sizeof(char *), cmp_name);
	for (size_t i = 0; i < names.len; i++) {
		count += replay(names.items[i]);
		free(names.items[i]);
	}
	free(names.items);
	return count;
}

int main(int argc, char **argv)
{
	size_t count = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++)
		count += replay(argv[i]);
	printf("%s: %zu inputs replayed\n", argv[0], count);
	return 0;
}
