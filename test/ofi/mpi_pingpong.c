/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two-rank MPI check and benchmark for the uet provider (run under
 * mpirun with Open MPI's mtl ofi, test/ofi/test_ofi_mpi.sh):
 *   - ping-pong of every power of two from 8 B to 1 MiB (-m: to another
 *     power of two up to 16 MiB), each message
 *     filled with a pattern of (size, iteration, direction) and checked
 *     on arrival;
 *   - MPI_Allreduce (sum) of a vector whose result is known;
 *   - with -b, latency (half round trip) and bandwidth (a window of
 *     non-blocking sends, acknowledged by one message) per size.
 * Exits non-zero on any mismatch or MPI error; prints one line per size.
 *
 * usage: mpi_pingpong [-i iterations] [-m max_bytes] [-b]
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#define MIN_SIZE 8u
#define MAX_SIZE_DEF (1u << 20)
#define MAX_SIZE_MAX (1u << 24)
#define WINDOW 16
#define ALLREDUCE_N 4096

static void
fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)(x >> 16);
	}
}

/* Index of the first byte that differs from the pattern, or -1. */
static long
check(const uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		if (p[i] != (uint8_t)(x >> 16))
			return (long)i;
	}
	return -1;
}

static uint32_t
seed_of(size_t size, int it, int dir)
{
	return (uint32_t)(size * 131u + (size_t)it * 7u + (size_t)dir);
}

/* Checked ping-pong of @p size bytes, @p iters round trips. */
static int
pingpong(int rank, uint8_t *sbuf, uint8_t *rbuf, size_t size, int iters,
	 double *usec)
{
	int peer = 1 - rank;
	double t0 = MPI_Wtime();

	for (int it = 0; it < iters; it++) {
		long bad;

		if (rank == 0) {
			fill(sbuf, size, seed_of(size, it, 0));
			MPI_Send(sbuf, (int)size, MPI_BYTE, peer, it,
				 MPI_COMM_WORLD);
			memset(rbuf, 0, size);
			MPI_Recv(rbuf, (int)size, MPI_BYTE, peer, it,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			bad = check(rbuf, size, seed_of(size, it, 1));
		} else {
			memset(rbuf, 0, size);
			MPI_Recv(rbuf, (int)size, MPI_BYTE, peer, it,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			bad = check(rbuf, size, seed_of(size, it, 0));
			fill(sbuf, size, seed_of(size, it, 1));
			MPI_Send(sbuf, (int)size, MPI_BYTE, peer, it,
				 MPI_COMM_WORLD);
		}
		if (bad >= 0) {
			fprintf(stderr, "rank %d: size %zu iteration %d: byte "
				"%ld differs\n", rank, size, it, bad);
			return -1;
		}
	}
	*usec = (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
	return 0;
}

/* Rank 0 streams windows of @p size bytes; rank 1 acknowledges each. */
static double
bandwidth(int rank, uint8_t *sbuf, uint8_t *rbuf, size_t size, int iters)
{
	MPI_Request req[WINDOW];
	int peer = 1 - rank;
	char ack = 0;
	double t0 = MPI_Wtime();

	for (int it = 0; it < iters; it++) {
		for (int w = 0; w < WINDOW; w++) {
			if (rank == 0)
				MPI_Isend(sbuf, (int)size, MPI_BYTE, peer, w,
					  MPI_COMM_WORLD, &req[w]);
			else
				MPI_Irecv(rbuf, (int)size, MPI_BYTE, peer, w,
					  MPI_COMM_WORLD, &req[w]);
		}
		MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
		if (rank == 0)
			MPI_Recv(&ack, 1, MPI_CHAR, peer, WINDOW,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		else
			MPI_Send(&ack, 1, MPI_CHAR, peer, WINDOW,
				 MPI_COMM_WORLD);
	}
	return (double)size * WINDOW * iters /
	       ((MPI_Wtime() - t0) * 1e6); /* MB/s */
}

static int
allreduce(int rank, int nranks)
{
	static int64_t in[ALLREDUCE_N], out[ALLREDUCE_N];

	for (int i = 0; i < ALLREDUCE_N; i++)
		in[i] = (int64_t)i * (rank + 1);
	MPI_Allreduce(in, out, ALLREDUCE_N, MPI_INT64_T, MPI_SUM,
		      MPI_COMM_WORLD);
	for (int i = 0; i < ALLREDUCE_N; i++) {
		/* sum over r of i * (r + 1) */
		int64_t want = (int64_t)i * nranks * (nranks + 1) / 2;

		if (out[i] != want) {
			fprintf(stderr, "rank %d: allreduce[%d] = %" PRId64
				", want %" PRId64 "\n", rank, i, out[i], want);
			return -1;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	int rank, nranks, iters = 20, opt, rc = 0;
	int bench = 0;
	size_t max = MAX_SIZE_DEF;
	uint8_t *sbuf, *rbuf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((opt = getopt(argc, argv, "i:m:b")) != -1) {
		if (opt == 'i')
			iters = atoi(optarg);
		else if (opt == 'm')
			max = strtoul(optarg, NULL, 0);
		else if (opt == 'b')
			bench = 1;
	}
	if (nranks != 2 || iters < 1 || max < MIN_SIZE || max > MAX_SIZE_MAX ||
	    (max & (max - 1)) != 0) {
		if (rank == 0)
			fprintf(stderr, "needs 2 ranks, iterations >= 1 and a "
					"power of two from 8 to 16 MiB\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	sbuf = malloc(max);
	rbuf = malloc(max);
	if (sbuf == NULL || rbuf == NULL)
		MPI_Abort(MPI_COMM_WORLD, 2);
	/* the bandwidth column only when measured (-b) */
	if (rank == 0)
		printf("%10s %12s%s\n", "bytes", "lat_us",
		       bench ? "      bw_MB/s" : "");
	for (size_t size = MIN_SIZE; size <= max && rc == 0; size *= 2) {
		double lat = 0, bw = 0;
		int local, all;

		local = pingpong(rank, sbuf, rbuf, size, iters, &lat);
		MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_MIN,
			      MPI_COMM_WORLD);
		if (all < 0) {
			rc = 1;
			break;
		}
		if (bench)
			bw = bandwidth(rank, sbuf, rbuf, size, iters);
		if (rank == 0) {
			printf("%10zu %12.2f", size, lat);
			if (bench)
				printf(" %12.1f", bw);
			printf("\n");
			fflush(stdout);
		}
	}
	if (rc == 0) {
		int local = allreduce(rank, nranks) < 0 ? 1 : 0;

		/* every rank takes part, whatever its own result */
		MPI_Allreduce(&local, &rc, 1, MPI_INT, MPI_MAX,
			      MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("%s\n", rc == 0 ? "mpi_pingpong: OK" :
					 "mpi_pingpong: FAILED");
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return rc;
}
