/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Errors a user can act on (uet-nodev.conf: a port whose device does not
 * exist): fi_getinfo lists it, fi_fabric fails with the errno of the
 * failure (an errno value, not -FI_EOTHER), twice in a row.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "ofi_check.h"

int
main(void)
{
	struct fi_info *h = fi_allocinfo(), *fi = NULL;
	struct fid_fabric *fab = NULL;
	int rc;

	if (h == NULL)
		return 1;
	h->fabric_attr->prov_name = strdup("uet");
	h->ep_attr->type = FI_EP_RDM;
	CHECK_RC(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &fi), 0);
	if (fi == NULL)
		goto out;
	for (int i = 0; i < 2; i++) {
		rc = fi_fabric(fi->fabric_attr, &fab, NULL);
		CHECK(rc < 0 && rc != -FI_EOTHER && -rc < FI_ERRNO_OFFSET);
		if (rc == 0)
			(void)fi_close(&fab->fid);
		else
			printf("fi_fabric: %d (%s)\n", rc, fi_strerror(-rc));
	}
out:
	fi_freeinfo(fi);
	fi_freeinfo(h);
	printf("errors: %d failure(s)\n", ofi_failures);
	return ofi_failures != 0;
}
