// SPDX-License-Identifier: GPL-2.0
/* A parsed netslicectl command, run: sent, its replies printed. */
#include "ctl.h"
#include "nl.h"
#include "run.h"
#include "view.h"

int ctl_run(struct ctl_req *req)
{
	int err;

	if (req->listen)
		return ctl_listen(req) ? CTL_EXIT_KERNEL : 0;
	if (req->exec)
		return req->exec(req);
	if (req->build) {
		err = req->build(req);
		if (err)
			return err;
	}
	if (!req->msg)
		return 0;
	if (req->list && view.json)
		json_open(&view.j, NULL, '[');
	err = ctl_send(req);
	if (req->list && view.json) {
		json_close(&view.j, ']');
		json_end(&view.j);
	}
	if (err)
		return CTL_EXIT_KERNEL;
	return req->done ? req->done(req) : 0;
}
