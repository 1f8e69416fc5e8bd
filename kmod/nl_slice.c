// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink slice operations: show and change a slice's configuration (the
 * same settings the slice's ioctls reach), read and reset its counters.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include <linux/netslice.h>

#include "compat.h"
#include "nl_family.h"
#include "chain.h"
#include "nl_slice.h"
#include "params.h"
#include "ring.h"
#include "slice.h"
#include "cut.h"
#include "stats.h"
#include "store.h"

static_assert(NSL_STATS_FIELDS == NETSLICE_A_COUNTERS_TX_ERR_LOOP);
static_assert(NETSLICE_CUT_MODE_AUTO == NETSLICE_CUT_AUTO);
static_assert(NETSLICE_BATCH_FLAGS_MULTI_WRITE == NETSLICE_MULTI_WRITE);

/* The whole list, however many CPUs: no fixed buffer to cut it short. */
static int nsl_nl_put_cpus(struct sk_buff *skb, int attr, const struct cpumask *mask)
{
	char *list = kasprintf(GFP_KERNEL, "%*pbl", cpumask_pr_args(mask));
	int err;

	if (!list)
		return -ENOMEM;
	err = nla_put_string(skb, attr, list);
	kfree(list);
	return err;
}

static int nsl_nl_slice_fill(struct sk_buff *skb, struct nsl_slice *slice, u32 portid, u32 seq,
			     int flags)
{
	struct netslice_cut sl;
	void *hdr;
	u16 next;
	int err;

	hdr = nsl_nl_put(skb, portid, seq, flags, NETSLICE_CMD_SLICE_GET);
	if (!hdr)
		return -EMSGSIZE;
	mutex_lock(&slice->lock);
	nsl_slice_cut(slice, &sl);
	next = READ_ONCE(slice->next);
	err = nla_put_u32(skb, NETSLICE_A_SLICE_ID, slice->id) ||
	      nla_put_u32(skb, NETSLICE_A_SLICE_RXQ_SIZE, slice->rxq_size) ||
	      nla_put_u32(skb, NETSLICE_A_SLICE_READERS, atomic_read(&slice->open_files)) ||
	      nsl_nl_put_cpus(skb, NETSLICE_A_SLICE_KERNEL_CPUS, slice->kernel_cpus) ||
	      nsl_nl_put_cpus(skb, NETSLICE_A_SLICE_USER_CPUS, slice->user_cpus) ||
	      nla_put_u32(skb, NETSLICE_A_SLICE_CUT_MODE, sl.mode) ||
	      (sl.mode == NETSLICE_CUT_FIXED &&
	       nla_put_u32(skb, NETSLICE_A_SLICE_CUT_LENGTH, sl.length)) ||
	      (sl.mode == NETSLICE_CUT_AUTO &&
	       nla_put_u32(skb, NETSLICE_A_SLICE_CUT_EXTRA, sl.extra)) ||
	      nla_put_u8(skb, NETSLICE_A_SLICE_CUT_TRIM, !!(sl.flags & NETSLICE_CUT_TRIM)) ||
	      nla_put_u32(skb, NETSLICE_A_SLICE_STORE_SIZE, sl.store_size) ||
	      nla_put_u32(skb, NETSLICE_A_SLICE_STORE_TIMEOUT_MS, sl.store_timeout_ms) ||
	      nla_put_bitfield32(skb, NETSLICE_A_SLICE_BATCH_FLAGS, slice->rw_flags,
				 NETSLICE_MULTI_READ | NETSLICE_MULTI_WRITE) ||
	      nla_put_u32(skb, NETSLICE_A_SLICE_BATCH_MAX, slice->max_batch) ||
	      nla_put_u8(skb, NETSLICE_A_SLICE_CUT_GSO, !!(sl.flags & NETSLICE_CUT_GSO)) ||
	      (next != NSL_CHAIN_NONE && nla_put_u32(skb, NETSLICE_A_SLICE_CHAIN_NEXT, next));
	mutex_unlock(&slice->lock);
	if (err) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int nsl_nl_stats_fill(struct sk_buff *skb, struct nsl_slice *slice, u32 portid, u32 seq,
			     int flags)
{
	struct netslice_stats stats;
	struct nlattr *nest;
	const u64 *v;
	unsigned int i;
	void *hdr;

	nsl_stats_read(slice, &stats);
	v = (const u64 *)&stats;
	hdr = nsl_nl_put(skb, portid, seq, flags, NETSLICE_CMD_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NETSLICE_A_STATS_SLICE, slice->id))
		goto err_cancel;
	nest = nla_nest_start(skb, NETSLICE_A_STATS_COUNTERS);
	if (!nest)
		goto err_cancel;
	for (i = 0; i < NSL_STATS_FIELDS; i++)
		if (nla_put_u64_64bit(skb, i + 1, v[i], NETSLICE_A_COUNTERS_PAD))
			goto err_cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

typedef int (*nsl_nl_fill_t)(struct sk_buff *skb, struct nsl_slice *slice, u32 portid, u32 seq,
			     int flags);

/* The slice an attribute names; NULL with the ack set if there is none. */
static struct nsl_slice *nsl_nl_slice(struct genl_info *info, int attr)
{
	u32 id;

	if (GENL_REQ_ATTR_CHECK(info, attr))
		return NULL;
	id = nla_get_u32(info->attrs[attr]);
	if (id >= nsl_nr_slices) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[attr], "no such slice");
		return NULL;
	}
	return &nsl_slices[id];
}

static int nsl_nl_reply(struct sk_buff *skb, struct genl_info *info, int attr, nsl_nl_fill_t fill)
{
	struct nsl_slice *slice;
	struct sk_buff *msg;
	int err;

	err = nsl_nl_may_see_slices(skb, info->extack);
	if (err)
		return err;
	slice = nsl_nl_slice(info, attr);
	if (!slice)
		return -EINVAL;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = fill(msg, slice, info->snd_portid, info->snd_seq, 0);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* Every slice, or the one the request names; cb->args[0] is the next. */
static int nsl_nl_dump(struct sk_buff *skb, struct netlink_callback *cb, int attr,
		       nsl_nl_fill_t fill)
{
	struct nlattr **attrs = nsl_genl_dump_attrs(cb);
	unsigned int id = cb->args[0], last = nsl_nr_slices;
	int err;

	err = nsl_nl_may_see_slices(cb->skb, cb->extack);
	if (err)
		return err;
	if (attrs[attr]) {
		if (id < nla_get_u32(attrs[attr]))
			id = nla_get_u32(attrs[attr]);
		last = min_t(unsigned int, nla_get_u32(attrs[attr]) + 1, last);
	}
	for (; id < last; id++)
		if (fill(skb, &nsl_slices[id], NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			 NLM_F_MULTI))
			break;
	cb->args[0] = id;
	return skb->len;
}

int nsl_nl_slice_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return nsl_nl_reply(skb, info, NETSLICE_A_SLICE_ID, nsl_nl_slice_fill);
}

int nsl_nl_slice_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return nsl_nl_dump(skb, cb, NETSLICE_A_SLICE_ID, nsl_nl_slice_fill);
}

int nsl_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return nsl_nl_reply(skb, info, NETSLICE_A_STATS_SLICE, nsl_nl_stats_fill);
}

int nsl_nl_stats_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return nsl_nl_dump(skb, cb, NETSLICE_A_STATS_SLICE, nsl_nl_stats_fill);
}

/* One slice, or every slice without the attribute. */
int nsl_nl_stats_reset_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nsl_slice *slice;
	unsigned int id;

	if (!info->attrs[NETSLICE_A_STATS_SLICE]) {
		for (id = 0; id < nsl_nr_slices; id++)
			nsl_stats_reset(&nsl_slices[id]);
		return 0;
	}
	slice = nsl_nl_slice(info, NETSLICE_A_STATS_SLICE);
	if (!slice)
		return -EINVAL;
	nsl_stats_reset(slice);
	return 0;
}

/* A CPU list attribute as a checked mask (kfree it); NULL when absent. */
static int nsl_nl_cpus(struct genl_info *info, int attr, struct cpumask **mask)
{
	struct nlattr *nla = info->attrs[attr];

	if (!nla)
		return 0;
	*mask = kzalloc(cpumask_size(), GFP_KERNEL);
	if (!*mask)
		return -ENOMEM;
	switch (cpulist_parse(nla_data(nla), *mask)) {
	case 0:
		break;
	case -ERANGE:
		NL_SET_ERR_MSG_ATTR(info->extack, nla,
				    "CPU list names a CPU beyond this machine's");
		return -EINVAL;
	default:
		NL_SET_ERR_MSG_ATTR(info->extack, nla, "not a CPU list (like 0-3,8)");
		return -EINVAL;
	}
	if (!nsl_cpus_valid(*mask)) {
		NL_SET_ERR_MSG_ATTR(info->extack, nla, "CPU list is empty or names an offline CPU");
		return -EINVAL;
	}
	return 0;
}

/* The cut the request asks for, checked, from the slice's current one. */
static int nsl_nl_cut(struct genl_info *info, struct nsl_slice *slice, u32 *cfg)
{
	struct nlattr **a = info->attrs;
	struct netslice_cut sl;

	nsl_cut_to_user(READ_ONCE(slice->cut), &sl);
	if (a[NETSLICE_A_SLICE_CUT_MODE]) {
		sl.mode = nla_get_u32(a[NETSLICE_A_SLICE_CUT_MODE]);
		sl.length = 0;
		sl.extra = 0;
	}
	if (a[NETSLICE_A_SLICE_CUT_LENGTH]) {
		if (sl.mode != NETSLICE_CUT_FIXED) {
			NL_SET_ERR_MSG_ATTR(info->extack, a[NETSLICE_A_SLICE_CUT_LENGTH],
					    "cut-length needs cut-mode fixed");
			return -EINVAL;
		}
		sl.length = nla_get_u32(a[NETSLICE_A_SLICE_CUT_LENGTH]);
	}
	if (a[NETSLICE_A_SLICE_CUT_EXTRA]) {
		if (sl.mode != NETSLICE_CUT_AUTO) {
			NL_SET_ERR_MSG_ATTR(info->extack, a[NETSLICE_A_SLICE_CUT_EXTRA],
					    "cut-extra needs cut-mode auto");
			return -EINVAL;
		}
		sl.extra = nla_get_u32(a[NETSLICE_A_SLICE_CUT_EXTRA]);
	}
	if (a[NETSLICE_A_SLICE_CUT_TRIM]) {
		sl.flags &= ~NETSLICE_CUT_TRIM;
		if (nla_get_u8(a[NETSLICE_A_SLICE_CUT_TRIM]))
			sl.flags |= NETSLICE_CUT_TRIM;
	}
	/* Cut off reads every packet whole: super-packets too, unless asked. */
	if (sl.mode == NETSLICE_CUT_OFF)
		sl.flags &= ~NETSLICE_CUT_GSO;
	if (a[NETSLICE_A_SLICE_CUT_GSO]) {
		sl.flags &= ~NETSLICE_CUT_GSO;
		if (nla_get_u8(a[NETSLICE_A_SLICE_CUT_GSO]))
			sl.flags |= NETSLICE_CUT_GSO;
	}
	if (sl.mode == NETSLICE_CUT_FIXED && !sl.length) {
		NL_SET_ERR_MSG(info->extack, "cut-mode fixed needs a cut-length");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, NETSLICE_A_SLICE_CUT_LENGTH);
		return -EINVAL;
	}
	if (sl.flags & NETSLICE_CUT_GSO && sl.mode == NETSLICE_CUT_OFF) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[NETSLICE_A_SLICE_CUT_GSO],
				    "cut-gso needs cut-mode fixed or auto");
		return -EINVAL;
	}
	if (nsl_cut_from_user(&sl, cfg)) {
		NL_SET_ERR_MSG(info->extack, "cut settings do not fit together");
		return -EINVAL;
	}
	return 0;
}

/*
 * The store's size and timeout and the RX queue's size, applied while
 * packets flow: the store keeps every parked payload's handle, a smaller
 * rxq frees what it cannot hold (counted as rx_purged). Both sizes change
 * or neither: the new queues are allocated first and swapped in only once the
 * store has taken its size.
 */
static int nsl_nl_slice_sizes(struct genl_info *info, struct nsl_slice *slice)
{
	struct nsl_rxq_resize rs = {};
	struct nlattr **a = info->attrs;
	int err;

	if (a[NETSLICE_A_SLICE_RXQ_SIZE]) {
		u32 size = nla_get_u32(a[NETSLICE_A_SLICE_RXQ_SIZE]);

		err = nsl_slice_rxq_resize_prepare(slice, size, &rs);
		if (err)
			return err;
	}
	if (a[NETSLICE_A_SLICE_STORE_SIZE]) {
		u32 capacity, timeout_ms;

		/* A ring's store took the size when it was set up (ring.c). */
		nsl_store_limits(&slice->store, &capacity, &timeout_ms);
		if (rcu_access_pointer(slice->ring) &&
		    nla_get_u32(a[NETSLICE_A_SLICE_STORE_SIZE]) != capacity) {
			NL_SET_ERR_MSG_ATTR(info->extack, a[NETSLICE_A_SLICE_STORE_SIZE],
					    "a file of the slice is in ring mode: its store keeps its size");
			nsl_slice_rxq_resize_abort(&rs);
			return -EBUSY;
		}
		err = nsl_store_resize(&slice->store, nla_get_u32(a[NETSLICE_A_SLICE_STORE_SIZE]));
		if (err == -EBUSY)
			NL_SET_ERR_MSG_ATTR(info->extack, a[NETSLICE_A_SLICE_STORE_SIZE],
					    "payloads are parked past that size; try again");
		if (err) {
			nsl_slice_rxq_resize_abort(&rs);
			return err;
		}
	}
	nsl_slice_rxq_resize_commit(slice, &rs);
	if (a[NETSLICE_A_SLICE_STORE_TIMEOUT_MS]) {
		nsl_store_set_timeout(&slice->store,
				      nla_get_u32(a[NETSLICE_A_SLICE_STORE_TIMEOUT_MS]));
		nsl_ring_store_timeout_set(slice);
	}
	return 0;
}

/*
 * The chain's change a request asks for: 0 with *next (NSL_CHAIN_NONE: it
 * ends here) and *chain set when it asks for one, else -errno.
 */
static int nsl_nl_chain(struct genl_info *info, bool *chain, u16 *next)
{
	struct nlattr **a = info->attrs;

	*chain = a[NETSLICE_A_SLICE_CHAIN_NEXT] || a[NETSLICE_A_SLICE_CHAIN_END];
	*next = NSL_CHAIN_NONE;
	if (a[NETSLICE_A_SLICE_CHAIN_NEXT] && a[NETSLICE_A_SLICE_CHAIN_END]) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[NETSLICE_A_SLICE_CHAIN_END],
				    "chain-next and chain-end contradict each other");
		return -EINVAL;
	}
	if (a[NETSLICE_A_SLICE_CHAIN_NEXT]) {
		if (!nsl_nl_slice(info, NETSLICE_A_SLICE_CHAIN_NEXT))
			return -EINVAL;
		*next = nla_get_u32(a[NETSLICE_A_SLICE_CHAIN_NEXT]);
	}
	return 0;
}

/* Everything is checked first: a rejected request changes nothing. */
int nsl_nl_slice_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct cpumask *kernel_cpus = NULL, *user_cpus = NULL;
	struct nlattr **a = info->attrs;
	struct nsl_slice *slice;
	u32 rw_flags, max_batch, cfg;
	bool chain;
	u16 next;
	int err;

	slice = nsl_nl_slice(info, NETSLICE_A_SLICE_ID);
	if (!slice)
		return -EINVAL;
	err = nsl_nl_chain(info, &chain, &next);
	if (err)
		return err;

	cpus_read_lock();
	err = nsl_nl_cpus(info, NETSLICE_A_SLICE_KERNEL_CPUS, &kernel_cpus);
	if (err)
		goto out_free_cpus;
	err = nsl_nl_cpus(info, NETSLICE_A_SLICE_USER_CPUS, &user_cpus);
	if (err)
		goto out_free_cpus;

	mutex_lock(&slice->lock);
	err = nsl_nl_cut(info, slice, &cfg);
	if (err)
		goto out_unlock;
	rw_flags = slice->rw_flags;
	if (a[NETSLICE_A_SLICE_BATCH_FLAGS]) {
		/* Under the slice's lock: two requests for different bits both land. */
		struct nla_bitfield32 bf = nla_get_bitfield32(a[NETSLICE_A_SLICE_BATCH_FLAGS]);

		rw_flags = (rw_flags & ~bf.selector) | (bf.value & bf.selector);
	}
	max_batch = a[NETSLICE_A_SLICE_BATCH_MAX] ?
		nla_get_u32(a[NETSLICE_A_SLICE_BATCH_MAX]) : slice->max_batch;

	/* What can fail first: a chain's loop, then the sizes (together or not at all). */
	if (chain) {
		err = nsl_chain_prepare(slice, next, info->extack);
		if (err)
			goto out_unlock;
	}
	err = nsl_nl_slice_sizes(info, slice);
	if (err) {
		if (chain)
			nsl_chain_abort();
		goto out_unlock;
	}
	if (chain)
		nsl_chain_commit(slice, next);
	nsl_slice_set_cpus(slice, kernel_cpus, user_cpus);
	nsl_slice_set_batch(slice, rw_flags, max_batch);
	nsl_slice_set_cut(slice, cfg);
out_unlock:
	mutex_unlock(&slice->lock);
out_free_cpus:
	cpus_read_unlock();
	kfree(user_cpus);
	kfree(kernel_cpus);
	return err;
}
