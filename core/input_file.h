/* Input files the user names (topologies, tables, caches): refuse what
 * cannot be one before reading it, so a directory says so and a device
 * such as /dev/zero is not read forever. */
#ifndef IBSM_CORE_INPUT_FILE_H
#define IBSM_CORE_INPUT_FILE_H

#include <stdio.h>

/* 0 for a regular file; -ENOENT if missing (not logged: whether that
 * matters is the caller's call); otherwise logs "PATH: reason" and returns
 * -EISDIR for a directory, -EINVAL for anything else that is not a regular
 * file, or -errno. */
int input_file_check(const char *path);

/* fopen(path, "r"); when that fails, logs "PATH: reason" and returns NULL
 * with *rc = -errno. */
FILE *input_file_open(const char *path, int *rc);

/* s without leading and trailing white space (isspace; the end is cut in
 * place): a line or field of an input file as its reader compares it. */
char *input_trim(char *s);

#endif
