/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One public header, included alone by a target that depends on one
 * module (test/modules/meson.build sets UET_PROBE_HEADER and the
 * dependency). Whether this compiles says whether the header is visible to
 * that module: the module order of docs/ARCHITECTURE.md, as the build
 * enforces it.
 */

#include UET_PROBE_HEADER

int uet_include_probe(void);

int uet_include_probe(void)
{
	return 0;
}
