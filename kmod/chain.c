// SPDX-License-Identifier: GPL-2.0
/*
 * Chains of slices: a slice's next slice, to which its NETSLICE_TX_DEFAULT
 * and NETSLICE_TX_NEXT writes hand packets (write.c, rx.c), and the right
 * that comes with being after another: a slice may send out of the
 * interfaces that feed any slice before it in a chain, as the NF there
 * could.
 *
 * Only slice-set (netlink, process context) changes a chain, under
 * nsl_chain_lock, which keeps every chain free of loops: a link that would
 * close one is refused. The write path reads a slice's next and the
 * bitmap of the slices before it without a lock, a word at a time, so a
 * write racing a change goes by the old chain or the new one.
 */
#include <linux/bitmap.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>

#include "chain.h"
#include "params.h"

/* Protects every slice's next and upstream, and the scratch bitmaps below. */
static DEFINE_MUTEX(nsl_chain_lock);
/* upstream[] as a change makes it, before it is published. */
static unsigned long nsl_chain_scratch[NETSLICE_MAX_SLICES][BITS_TO_LONGS(NETSLICE_MAX_SLICES)];

bool nsl_chain_feeds(const struct nsl_slice *slice, const struct nsl_iface *iface)
{
	unsigned int end = iface->slice_first + iface->slice_count;

	return nsl_iface_feeds(iface, slice->id) ||
	       find_next_bit(slice->upstream, end, iface->slice_first) < end;
}

/* next is id, or its chain reaches id. */
static bool nsl_chain_reaches(u16 next, unsigned int id)
{
	unsigned int steps;

	lockdep_assert_held(&nsl_chain_lock);
	for (steps = 0; next != NSL_CHAIN_NONE && steps < nsl_nr_slices; steps++) {
		if (next == id)
			return true;
		next = nsl_slices[next].next;
	}
	return false;
}

int nsl_chain_prepare(struct nsl_slice *slice, u16 next, struct netlink_ext_ack *extack)
{
	lockdep_assert_held(&slice->lock);
	mutex_lock(&nsl_chain_lock);
	if (next != NSL_CHAIN_NONE && nsl_chain_reaches(next, slice->id)) {
		NL_SET_ERR_MSG(extack, "the next slice's chain leads back to this slice: a loop");
		mutex_unlock(&nsl_chain_lock);
		return -ELOOP;
	}
	return 0;
}

/* A slice's next, as it is or as a change being applied makes it. */
static u16 nsl_chain_next_of(unsigned int id, const struct nsl_slice *changed, u16 next)
{
	return id == changed->id ? next : nsl_slices[id].next;
}

/*
 * Every slice's upstream, from every slice's next with changed's as next:
 * each slice marks itself in the upstream of every slice its chain reaches.
 */
static void nsl_chain_publish(const struct nsl_slice *changed, u16 next)
{
	unsigned int s, t, w, steps;
	u16 n;

	lockdep_assert_held(&nsl_chain_lock);
	memset(nsl_chain_scratch, 0, sizeof(nsl_chain_scratch));
	for (s = 0; s < nsl_nr_slices; s++) {
		n = nsl_chain_next_of(s, changed, next);
		for (steps = 0; n != NSL_CHAIN_NONE && steps < nsl_nr_slices; steps++) {
			__set_bit(s, nsl_chain_scratch[n]);
			n = nsl_chain_next_of(n, changed, next);
		}
	}
	for (t = 0; t < nsl_nr_slices; t++)
		for (w = 0; w < BITS_TO_LONGS(NETSLICE_MAX_SLICES); w++)
			WRITE_ONCE(nsl_slices[t].upstream[w], nsl_chain_scratch[t][w]);
}

void nsl_chain_commit(struct nsl_slice *slice, u16 next)
{
	lockdep_assert_held(&nsl_chain_lock);
	/*
	 * The rights a new link gives before the link, those a cut one took
	 * after the cut: no packet handed on finds its rights missing.
	 */
	if (next != NSL_CHAIN_NONE) {
		nsl_chain_publish(slice, next);
		WRITE_ONCE(slice->next, next);
	} else {
		WRITE_ONCE(slice->next, NSL_CHAIN_NONE);
		nsl_chain_publish(slice, next);
	}
	mutex_unlock(&nsl_chain_lock);
}

void nsl_chain_abort(void)
{
	lockdep_assert_held(&nsl_chain_lock);
	mutex_unlock(&nsl_chain_lock);
}
