/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI one-sided over the provider (test/ofi/test_ofi_mpi.sh, osc rdma over
 * btl ofi) beside two-sided (pml cm over mtl ofi) in one job of two ranks:
 * on a window of WIN_N 64-bit integers per rank, MPI_Put, MPI_Get,
 * MPI_Accumulate (MPI_SUM) and MPI_Fetch_and_op (MPI_SUM), under fences
 * and under passive-target locks, every value checked; then a 64 KiB
 * MPI_Sendrecv. Rank 0 prints "mpi_onesided: OK" when every check of
 * both ranks passed.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define WIN_N 1024
#define ROUNDS 4
#define MSG (64 * 1024)

static int failures;

#define CHECK(c)                                                        \
	do {                                                            \
		if (!(c)) {                                             \
			fprintf(stderr, "%s:%d: check failed: %s\n",   \
				__FILE__, __LINE__, #c);                \
			failures++;                                     \
		}                                                       \
	} while (0)

static int64_t
pattern(int rank, int round, int i)
{
	return (int64_t)rank << 40 | (int64_t)round << 20 | i;
}

/* Put my pattern into the peer's window, read it back with Get. */
static void
put_get(MPI_Win win, const int64_t *base, int rank, int peer, int round)
{
	int64_t src[WIN_N], got[WIN_N];

	for (int i = 0; i < WIN_N; i++)
		src[i] = pattern(rank, round, i);
	MPI_Win_fence(0, win);
	MPI_Put(src, WIN_N, MPI_INT64_T, peer, 0, WIN_N, MPI_INT64_T, win);
	MPI_Win_fence(0, win);
	for (int i = 0; i < WIN_N; i++)
		CHECK(base[i] == pattern(peer, round, i));
	memset(got, 0, sizeof(got));
	MPI_Get(got, WIN_N, MPI_INT64_T, peer, 0, WIN_N, MPI_INT64_T, win);
	MPI_Win_fence(0, win);
	for (int i = 0; i < WIN_N; i++)
		CHECK(got[i] == src[i]);
}

/* Accumulate into the peer's window, then Fetch_and_op on one counter of
 * each rank's window, under a passive-target lock. */
static void
accumulate(MPI_Win win, int64_t *base, int rank, int peer, int round)
{
	int64_t add[WIN_N], one = 1, old = -1;

	for (int i = 0; i < WIN_N; i++)
		add[i] = i + round;
	MPI_Win_fence(0, win);
	MPI_Accumulate(add, WIN_N, MPI_INT64_T, peer, 0, WIN_N, MPI_INT64_T,
		       MPI_SUM, win);
	MPI_Win_fence(0, win);
	/* the window held the peer's pattern (put_get) */
	for (int i = 0; i < WIN_N; i++)
		CHECK(base[i] == pattern(peer, round, i) + i + round);
	/* word 0 of rank 0's window: each rank adds 1 ten times */
	MPI_Win_fence(0, win);
	if (rank == 0)
		base[0] = 0;
	MPI_Win_fence(0, win);
	for (int k = 0; k < 10; k++) {
		MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
		MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 0, MPI_SUM, win);
		MPI_Win_unlock(0, win);
		CHECK(old >= 0 && old < 20);
	}
	MPI_Win_fence(0, win);
	if (rank == 0)
		CHECK(base[0] == 20);
	(void)peer;
}

static void
two_sided(int rank, int peer)
{
	char *s = malloc(MSG), *r = malloc(MSG);

	if (s == NULL || r == NULL) {
		failures++;
		goto out;
	}
	for (int i = 0; i < MSG; i++)
		s[i] = (char)(i * 7 + rank);
	memset(r, 0, MSG);
	MPI_Sendrecv(s, MSG, MPI_CHAR, peer, 5, r, MSG, MPI_CHAR, peer, 5,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (int i = 0; i < MSG; i++)
		if (r[i] != (char)(i * 7 + peer)) {
			CHECK(r[i] == (char)(i * 7 + peer));
			break;
		}
out:
	free(s);
	free(r);
}

int
main(int argc, char **argv)
{
	int rank, size, peer, all = 0;
	int64_t *base = NULL;
	MPI_Win win;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		if (rank == 0)
			fprintf(stderr, "mpi_onesided: needs 2 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	peer = 1 - rank;
	MPI_Win_allocate(WIN_N * sizeof(int64_t), sizeof(int64_t),
			 MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	for (int round = 0; round < ROUNDS; round++) {
		put_get(win, base, rank, peer, round);
		accumulate(win, base, rank, peer, round);
	}
	MPI_Win_free(&win);
	two_sided(rank, peer);
	MPI_Reduce(&failures, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf(all == 0 ? "mpi_onesided: OK\n" :
				  "mpi_onesided: %d failure(s)\n", all);
	MPI_Finalize();
	return all != 0;
}
