/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * N-rank MPI check for the uet provider (test/ofi/test_ofi_mpi4.sh):
 *   - ring: every rank sends to rank + 1 and receives from rank - 1
 *     every power of two from 8 B to 1 MiB (eager and rendezvous), each
 *     message filled with a pattern of (size, sender) and checked;
 *   - all pairs: every rank exchanges 64 KiB with every other rank
 *     (MPI_Sendrecv, pairwise XOR schedule for a power-of-two size, else
 *     by shifts), checked;
 *   - MPI_Allreduce (sum) of a vector whose result is known.
 * Exits non-zero on any mismatch or MPI error; rank 0 prints
 * "mpi_ring: OK" at the end.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define MIN_SIZE 8u
#define MAX_SIZE (1u << 20)
#define PAIR_SIZE (64u << 10)
#define ALLREDUCE_N 4096

static void
fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

/* Index of the first byte that differs from the pattern, or -1. */
static long
check(const uint8_t *p, size_t n, uint32_t seed)
{
	uint8_t *want = malloc(n);
	long bad = -1;

	if (want == NULL)
		return 0;
	fill(want, n, seed);
	for (size_t i = 0; i < n && bad < 0; i++)
		if (p[i] != want[i])
			bad = (long)i;
	free(want);
	return bad;
}

static uint32_t
seed_of(size_t size, int from, int to)
{
	return (uint32_t)(size * 131u + (size_t)from * 7919u + (size_t)to);
}

/* One exchange: send @p size bytes to @p to, receive from @p from. */
static int
exchange(int rank, int to, int from, size_t size, uint8_t *sbuf,
	 uint8_t *rbuf)
{
	long bad;

	fill(sbuf, size, seed_of(size, rank, to));
	memset(rbuf, 0, size);
	MPI_Sendrecv(sbuf, (int)size, MPI_BYTE, to, (int)size & 0x7fff,
		     rbuf, (int)size, MPI_BYTE, from, (int)size & 0x7fff,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	bad = check(rbuf, size, seed_of(size, from, rank));
	if (bad >= 0) {
		fprintf(stderr, "rank %d: %zu bytes from rank %d: byte %ld "
			"differs\n", rank, size, from, bad);
		return 1;
	}
	return 0;
}

static int
ring(int rank, int n, uint8_t *sbuf, uint8_t *rbuf)
{
	int fails = 0;

	for (size_t size = MIN_SIZE; size <= MAX_SIZE; size *= 2)
		fails += exchange(rank, (rank + 1) % n, (rank + n - 1) % n,
				  size, sbuf, rbuf);
	return fails;
}

static int
all_pairs(int rank, int n, uint8_t *sbuf, uint8_t *rbuf)
{
	int fails = 0;

	for (int k = 1; k < n; k++)
		fails += exchange(rank, (rank + k) % n, (rank + n - k) % n,
				  PAIR_SIZE, sbuf, rbuf);
	return fails;
}

static int
allreduce(int rank, int n)
{
	static int64_t in[ALLREDUCE_N], out[ALLREDUCE_N];
	int fails = 0;

	for (int i = 0; i < ALLREDUCE_N; i++)
		in[i] = (int64_t)i * (rank + 1);
	MPI_Allreduce(in, out, ALLREDUCE_N, MPI_INT64_T, MPI_SUM,
		      MPI_COMM_WORLD);
	for (int i = 0; i < ALLREDUCE_N; i++)
		if (out[i] != (int64_t)i * n * (n + 1) / 2)
			fails++;
	if (fails)
		fprintf(stderr, "rank %d: allreduce: %d wrong\n", rank, fails);
	return fails != 0;
}

int
main(int argc, char **argv)
{
	uint8_t *sbuf = malloc(MAX_SIZE), *rbuf = malloc(MAX_SIZE);
	int rank, n, fails = 0, total = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (sbuf == NULL || rbuf == NULL || n < 2) {
		fprintf(stderr, "rank %d: %s\n", rank,
			n < 2 ? "needs at least 2 ranks" : "no memory");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	fails += ring(rank, n, sbuf, rbuf);
	fails += all_pairs(rank, n, sbuf, rbuf);
	fails += allreduce(rank, n);
	MPI_Allreduce(&fails, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0) {
		if (total == 0)
			printf("mpi_ring: OK (%d ranks)\n", n);
		else
			printf("mpi_ring: %d failure(s)\n", total);
	}
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return total != 0;
}
