// SPDX-License-Identifier: GPL-2.0
/*
 * Chains of slices: a slice's next slice, to which its NETSLICE_TX_DEFAULT
 * and NETSLICE_TX_NEXT writes hand packets (write.c, rx.c), and the right
 * that comes with being after another: a slice may send out of the
 * interfaces that feed any slice before it in a chain, as the NF there
 * could.
 *
 * Only slice-set (netlink, process context) changes a chain, under
 * nsl_chain_lock, which keeps every chain free of loops and no longer
 * than a payload may be handed on (NETSLICE_CHAIN_MAX_HOPS links): a link
 * that would break either is refused. The write path reads a slice's
 * next (acquire) and the bitmap of the slices before it without a lock,
 * so a write racing a change goes by the old chain or the new one. A
 * change publishes the rights of the old chain and the new together
 * before it moves the link, and only then takes the old one's away: a
 * packet never finds a link without its rights. Packets handed on before
 * a link is cut keep no rights of it.
 */
#include <linux/bitmap.h>
#include <linux/compiler.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>

#include "chain.h"
#include "params.h"

/* The refusal's message names the number. */
static_assert(NETSLICE_CHAIN_MAX_HOPS == 8);

/* Protects every slice's next and upstream, and the scratch bitmaps below. */
static DEFINE_MUTEX(nsl_chain_lock);
/* upstream[] as a change makes it, before it is published. */
static unsigned long nsl_chain_scratch[NETSLICE_MAX_SLICES][BITS_TO_LONGS(NETSLICE_MAX_SLICES)];

bool nsl_chain_feeds(const struct nsl_slice *slice, const struct nsl_iface *iface)
{
	unsigned int end = iface->slice_first + iface->slice_count;

	return nsl_iface_feeds(iface, slice->id) ||
	       /* Racing nsl_chain_store(): each word old or new, either a chain's. */
	       data_race(find_next_bit(slice->upstream, end, iface->slice_first)) < end;
}

/* A slice's next, as it is or as a change being applied makes it. */
static u16 nsl_chain_next_of(unsigned int id, const struct nsl_slice *changed, u16 next)
{
	return id == changed->id ? next : nsl_slices[id].next;
}

/*
 * Links from slice id on, with changed's next as next; past every slice
 * means a loop (nsl_nr_slices + 1).
 */
static unsigned int nsl_chain_links(unsigned int id, const struct nsl_slice *changed, u16 next)
{
	unsigned int links = 0;
	u16 n;

	lockdep_assert_held(&nsl_chain_lock);
	for (n = nsl_chain_next_of(id, changed, next); n != NSL_CHAIN_NONE;
	     n = nsl_chain_next_of(n, changed, next))
		if (++links > nsl_nr_slices)
			break;
	return links;
}

int nsl_chain_prepare(struct nsl_slice *slice, u16 next, struct netlink_ext_ack *extack)
{
	unsigned int s;

	lockdep_assert_held(&slice->lock);
	mutex_lock(&nsl_chain_lock);
	if (next == NSL_CHAIN_NONE)
		return 0;
	for (s = 0; s < nsl_nr_slices; s++) {
		unsigned int links = nsl_chain_links(s, slice, next);

		if (links > nsl_nr_slices) {
			NL_SET_ERR_MSG(extack,
				       "the next slice's chain leads back to this slice: a loop");
			mutex_unlock(&nsl_chain_lock);
			return -ELOOP;
		}
		if (links > NETSLICE_CHAIN_MAX_HOPS) {
			NL_SET_ERR_MSG(extack, "a chain hands a packet on at most 8 times");
			mutex_unlock(&nsl_chain_lock);
			return -EMLINK;
		}
	}
	return 0;
}

/* Add to the scratch bitmaps the rights of the chains with changed's next as next. */
static void nsl_chain_rights(const struct nsl_slice *changed, u16 next)
{
	unsigned int s, steps;
	u16 n;

	lockdep_assert_held(&nsl_chain_lock);
	for (s = 0; s < nsl_nr_slices; s++) {
		n = nsl_chain_next_of(s, changed, next);
		for (steps = 0; n != NSL_CHAIN_NONE && steps < nsl_nr_slices; steps++) {
			__set_bit(s, nsl_chain_scratch[n]);
			n = nsl_chain_next_of(n, changed, next);
		}
	}
}

/* Every slice's upstream from the scratch bitmaps, which are then cleared. */
static void nsl_chain_store(void)
{
	unsigned int t, w;

	lockdep_assert_held(&nsl_chain_lock);
	for (t = 0; t < nsl_nr_slices; t++)
		for (w = 0; w < BITS_TO_LONGS(NETSLICE_MAX_SLICES); w++)
			WRITE_ONCE(nsl_slices[t].upstream[w], nsl_chain_scratch[t][w]);
	memset(nsl_chain_scratch, 0, sizeof(nsl_chain_scratch));
}

void nsl_chain_commit(struct nsl_slice *slice, u16 next)
{
	lockdep_assert_held(&nsl_chain_lock);
	nsl_chain_rights(slice, slice->next);
	nsl_chain_rights(slice, next);
	nsl_chain_store();
	/* The rights before the link: pairs with nsl_chain_next()'s acquire. */
	smp_store_release(&slice->next, next);
	nsl_chain_rights(slice, next);
	nsl_chain_store();
	mutex_unlock(&nsl_chain_lock);
}

void nsl_chain_abort(void)
{
	lockdep_assert_held(&nsl_chain_lock);
	mutex_unlock(&nsl_chain_lock);
}
