// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * nf-ipsec: an ESP tunnel gateway (RFC 4303, tunnel mode) with AES-GCM
 * (RFC 4106) through OpenSSL's libcrypto, static keys from a config file
 * and an anti-replay window. It needs whole packets: the cut is off.
 *
 * Two gateways form a tunnel. On the plain side the gateway is the hosts'
 * router (they route via plain-address; it answers ARP for it and learns
 * their MACs); every IP packet from there is encrypted into one ESP packet
 * from local to remote, out of the tunnel interface. ESP packets for our
 * SPI arriving on the tunnel side are checked against the replay window,
 * decrypted, authenticated and sent to the plain side. Nothing else
 * crosses: the tunnel wire carries only ESP (and ARP for the endpoints).
 *
 * Nonce = 4-byte salt || 8-byte IV; the IV is the 64-bit sequence number
 * (unique per key, RFC 4106 section 3.1); AAD = SPI || 32-bit sequence.
 * Each worker has its own cipher contexts.
 *
 * Sequence numbers leave in order (RFC 4303 3.3.3: receivers with a small
 * window, or none, as Linux's default, refuse anything older): a worker
 * takes the outbound SA's lock before numbering the first packet of its
 * batch and releases it once the batch is written (the sent callback), so
 * batches of several workers reach the egress queue in the order they
 * were numbered.
 *
 * The receive window (RFC 4303 3.4.3; up to 4,096, default 1,024) is the
 * SA's, whichever slice decrypts: a packet a window or more behind the
 * newest one any slice accepted is too old, and one inside it is accepted
 * once (one bitmap, a window deep, catches duplicates across slices).
 * Packets of one SA may arrive on several queues (a veth or a NIC that
 * queues by sending CPU, by inner flow...); each queue keeps wire order,
 * but a worker's queue can hold a batch's worth of older packets while
 * another worker accepts newer ones: a reordering the window must cover
 * (about slices x batch), as it covers the peer's own.
 *
 * As the router it is for the hosts on either side, the gateway copies
 * DSCP and ECN from the inner header to the outer one (RFC 4301 5.1.2.1,
 * RFC 6040 normal mode), combines the outer ECN into the inner on
 * decapsulation (RFC 6040 4.2: CE over Not-ECT is dropped), decrements
 * the inner TTL each way and answers expiry with ICMP time exceeded
 * (through the tunnel when the sender is on the other side).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "conf.h"
#include "neigh.h"
#include "nf.h"

#define ESP_HDR 8		/* SPI, sequence */
#define ESP_IV 8
#define ESP_ICV 16
#define ESP_MAX_WINDOW 4096
#define ESP_DEFAULT_WINDOW 1024
#define ESP_REPLAY_BITS ESP_MAX_WINDOW	/* numbers remembered up to the newest */
#define OUTER_IP 20
#define ETH_HDR 14
#define IPSEC_BUF_SIZE 2048

struct ipsec_sa {
	uint32_t spi;			/* network order */
	uint8_t key[32], salt[4];
	unsigned int key_len;		/* 16 or 32 */
};

struct ipsec {
	const char *config;
	char plain_name[32], tunnel_name[32];
	int plain_if, tunnel_if;
	uint32_t plain_addr, local, remote;
	uint8_t plain_mac[6], tunnel_mac[6], remote_mac[6];
	int has_remote_mac;
	struct ipsec_sa out, in;
	unsigned long window;

	pthread_mutex_t tx_lock;	/* protects seq_out; held from numbering to sending */
	uint64_t seq_out;		/* last sequence number sent */

	pthread_mutex_t replay_lock;	/* protects replay_bits; replay_top's writes */
	uint64_t replay_top;		/* highest sequence number any slice accepted */
	uint64_t replay_bits[ESP_REPLAY_BITS / 64];	/* bit seq % ESP_REPLAY_BITS */

	struct nf_neigh_table plain_neigh, tunnel_neigh;
	uint64_t encrypted, decrypted, replayed, too_old, auth_failed, bad_spi, not_whole,
		 too_big, no_mac, dropped_other, arp_answered, ttl_expired, ecn_dropped;
};

static struct ipsec ipsec_state = {
	.window = ESP_DEFAULT_WINDOW,
	.tx_lock = PTHREAD_MUTEX_INITIALIZER,
	.replay_lock = PTHREAD_MUTEX_INITIALIZER,
};

struct ipsec_worker {
	EVP_CIPHER_CTX *enc, *dec;
	bool tx_locked;		/* this batch holds tx_lock */
};

static void ipsec_count(uint64_t *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

static const EVP_CIPHER *ipsec_cipher(const struct ipsec_sa *sa)
{
	return sa->key_len == 32 ? EVP_aes_256_gcm() : EVP_aes_128_gcm();
}

static int ipsec_worker_init(struct ns_worker *w, void *arg)
{
	struct ipsec *is = arg;
	struct ipsec_worker *iw = calloc(1, sizeof(*iw));

	if (!iw)
		return -ENOMEM;
	iw->enc = EVP_CIPHER_CTX_new();
	iw->dec = EVP_CIPHER_CTX_new();
	/* The key schedule once; each packet sets only its nonce. */
	if (!iw->enc || !iw->dec ||
	    EVP_EncryptInit_ex(iw->enc, ipsec_cipher(&is->out), NULL, is->out.key, NULL) != 1 ||
	    EVP_DecryptInit_ex(iw->dec, ipsec_cipher(&is->in), NULL, is->in.key, NULL) != 1) {
		EVP_CIPHER_CTX_free(iw->enc);
		EVP_CIPHER_CTX_free(iw->dec);
		free(iw);
		return -ENOMEM;
	}
	ns_worker_set_priv(w, iw);
	return 0;
}

static void ipsec_worker_fini(struct ns_worker *w, void *arg)
{
	struct ipsec_worker *iw = ns_worker_priv(w);

	(void)arg;
	EVP_CIPHER_CTX_free(iw->enc);
	EVP_CIPHER_CTX_free(iw->dec);
	free(iw);
}

static void ipsec_nonce(uint8_t nonce[12], const struct ipsec_sa *sa, const uint8_t iv[8])
{
	memcpy(nonce, sa->salt, 4);
	memcpy(nonce + 4, iv, 8);
}

/*
 * Ethernet + IPv4 header of an ESP packet from local to remote, len bytes
 * of ESP, with the inner packet's DSCP and ECN (tos).
 */
static void ipsec_outer(struct ipsec *is, uint8_t *f, uint32_t esp_len, uint64_t seq,
			uint8_t tos)
{
	uint8_t *ip = f + ETH_HDR;
	uint16_t v;

	memcpy(f, is->remote_mac, 6);
	memcpy(f + 6, is->tunnel_mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, OUTER_IP);
	ip[0] = 0x45;
	ip[1] = tos;
	v = htons((uint16_t)(OUTER_IP + esp_len));
	memcpy(ip + 2, &v, 2);
	v = htons((uint16_t)seq);
	memcpy(ip + 4, &v, 2);
	ip[8] = 64;
	ip[9] = IPPROTO_ESP;
	memcpy(ip + 12, &is->local, 4);
	memcpy(ip + 16, &is->remote, 4);
	v = ns_csum(ip, OUTER_IP);
	memcpy(ip + 10, &v, 2);
}

/* A plain-side IP packet into an ESP packet, in place, out of the tunnel. */
static void ipsec_encrypt(struct ipsec *is, struct ipsec_worker *iw, struct netslice_iov *iov,
			  const struct ns_pkt *p)
{
	uint8_t *f = ns_iov_data(iov), *esp = f + ETH_HDR + OUTER_IP, *pt, nonce[12];
	uint32_t inner = p->l3_len, pad, pt_len, esp_len, seq32;
	uint8_t tos = p->data[p->l3_off + 1];
	uint64_t seq, iv;
	int len;

	pad = (4 - (inner + 2) % 4) % 4;
	pt_len = inner + pad + 2;
	esp_len = ESP_HDR + ESP_IV + pt_len + ESP_ICV;
	/* Room in the buffer, and an outer IP length that fits its 16 bits. */
	if (ETH_HDR + OUTER_IP + esp_len > iov->len || OUTER_IP + esp_len > 0xffff) {
		ipsec_count(&is->too_big);
		ns_iov_drop(iov);
		return;
	}
	/* Numbered in the order the batches are sent: released in ipsec_sent(). */
	if (!iw->tx_locked) {
		pthread_mutex_lock(&is->tx_lock);
		iw->tx_locked = true;
	}
	seq = __atomic_add_fetch(&is->seq_out, 1, __ATOMIC_RELAXED);
	if (seq > UINT32_MAX) {		/* no ESN: the SA is used up (RFC 4303 3.3.3) */
		ipsec_count(&is->dropped_other);
		ns_iov_drop(iov);
		return;
	}
	pt = esp + ESP_HDR + ESP_IV;
	memmove(pt, f + p->l3_off, inner);
	for (len = 0; len < (int)pad; len++)
		pt[inner + len] = (uint8_t)(len + 1);
	pt[inner + pad] = (uint8_t)pad;
	pt[inner + pad + 1] = IPPROTO_IPIP;
	memcpy(esp, &is->out.spi, 4);
	seq32 = htonl((uint32_t)seq);
	memcpy(esp + 4, &seq32, 4);
	iv = htobe64(seq);
	memcpy(esp + ESP_HDR, &iv, ESP_IV);
	ipsec_nonce(nonce, &is->out, esp + ESP_HDR);
	if (EVP_EncryptInit_ex(iw->enc, NULL, NULL, NULL, nonce) != 1 ||
	    EVP_EncryptUpdate(iw->enc, NULL, &len, esp, ESP_HDR) != 1 ||
	    EVP_EncryptUpdate(iw->enc, pt, &len, pt, (int)pt_len) != 1 ||
	    EVP_EncryptFinal_ex(iw->enc, pt + len, &len) != 1 ||
	    EVP_CIPHER_CTX_ctrl(iw->enc, EVP_CTRL_GCM_GET_TAG, ESP_ICV, pt + pt_len) != 1) {
		ipsec_count(&is->dropped_other);
		ns_iov_drop(iov);
		return;
	}
	ipsec_outer(is, f, esp_len, seq, tos);
	iov->rlen = ETH_HDR + OUTER_IP + esp_len;
	iov->action = NETSLICE_TX_IFINDEX;
	iov->ifindex = (uint32_t)is->tunnel_if;
	ipsec_count(&is->encrypted);
}

enum ipsec_replay_verdict { ESP_ACCEPT, ESP_REPLAY, ESP_TOO_OLD };

/* A window or more behind top: the window no longer covers it. */
static bool ipsec_too_old(const struct ipsec *is, uint64_t top, uint64_t seq)
{
	return seq < top && top - seq >= is->window;
}

/*
 * Replay window (RFC 4303 3.4.3), see the top of the file: may seq be
 * accepted, whichever slice has it? If so and asked to, record it.
 */
static enum ipsec_replay_verdict ipsec_replay(struct ipsec *is, uint64_t seq, int update)
{
	enum ipsec_replay_verdict v = ESP_ACCEPT;
	uint64_t s, *word;

	if (!seq)
		return ESP_TOO_OLD;	/* never sent: the first number is 1 */
	/* The top only grows: what is too old now stays so, no lock needed to say it. */
	if (ipsec_too_old(is, __atomic_load_n(&is->replay_top, __ATOMIC_RELAXED), seq))
		return ESP_TOO_OLD;
	pthread_mutex_lock(&is->replay_lock);
	if (seq > is->replay_top) {
		if (update) {
			/* The numbers skipped over were not seen. */
			if (seq - is->replay_top >= ESP_REPLAY_BITS)
				memset(is->replay_bits, 0, sizeof(is->replay_bits));
			else
				for (s = is->replay_top + 1; s < seq; s++)
					is->replay_bits[s % ESP_REPLAY_BITS / 64] &=
						~(1ULL << (s % 64));
			__atomic_store_n(&is->replay_top, seq, __ATOMIC_RELAXED);
			is->replay_bits[seq % ESP_REPLAY_BITS / 64] |= 1ULL << (seq % 64);
		}
	} else if (ipsec_too_old(is, is->replay_top, seq)) {
		v = ESP_TOO_OLD;	/* another slice moved the window on meanwhile */
	} else {
		word = &is->replay_bits[seq % ESP_REPLAY_BITS / 64];
		if (*word >> (seq % 64) & 1)
			v = ESP_REPLAY;
		else if (update)
			*word |= 1ULL << (seq % 64);
	}
	pthread_mutex_unlock(&is->replay_lock);
	return v;
}

/* Drop a packet the window refuses, counted by why. */
static int ipsec_replay_drop(struct ipsec *is, struct netslice_iov *iov, uint64_t seq, int update)
{
	enum ipsec_replay_verdict v = ipsec_replay(is, seq, update);

	if (v == ESP_ACCEPT)
		return 0;
	ipsec_count(v == ESP_REPLAY ? &is->replayed : &is->too_old);
	ns_iov_drop(iov);
	return -1;
}

/* The batch is written: its sequence numbers are on their way, in order. */
static void ipsec_sent(struct ns_worker *w, void *arg)
{
	struct ipsec_worker *iw = ns_worker_priv(w);
	struct ipsec *is = arg;

	if (iw->tx_locked) {
		iw->tx_locked = false;
		pthread_mutex_unlock(&is->tx_lock);
	}
}

/*
 * RFC 6040 4.2: the outer ECN field into the inner packet at ip (fixing
 * its checksum). -1: CE outside over a Not-ECT packet, which must be dropped.
 */
static int ipsec_ecn_decap(uint8_t *ip, uint8_t outer_tos)
{
	uint8_t outer = outer_tos & 3, inner = ip[1] & 3, ecn = inner;
	uint16_t old, new, c;

	if (outer == 3)
		ecn = 3;
	else if (outer == 1 && inner == 2)
		ecn = 1;	/* ECT(1) outside over ECT(0) */
	if (!inner && outer == 3)
		return -1;
	if (!inner || ecn == inner)
		return 0;
	memcpy(&old, ip, 2);
	ip[1] = (uint8_t)((ip[1] & ~3) | ecn);
	memcpy(&new, ip, 2);
	memcpy(&c, ip + 10, 2);
	ns_csum_update16(&c, old, new);
	memcpy(ip + 10, &c, 2);
	return 0;
}

/*
 * The packet in iov (parsed as p) has no TTL left: turn it into ICMP time
 * exceeded from our plain-side address to its sender. 0 and p parsed
 * again as the error, or -1 if no error is due (drop it).
 */
static int ipsec_time_exceeded(struct ipsec *is, struct netslice_iov *iov, struct ns_pkt *p)
{
	uint8_t err[14 + 576];
	int len;

	ipsec_count(&is->ttl_expired);
	len = ns_icmp_error_build(err, sizeof(err), p, ICMP_TIME_EXCEEDED, ICMP_EXC_TTL, 0,
				  is->plain_addr, is->plain_mac);
	if (len < 0 || (uint32_t)len > iov->len)
		return -1;
	memcpy(ns_iov_data(iov), err, (size_t)len);
	iov->rlen = (uint32_t)len;
	return ns_pkt_parse(p, ns_iov_data(iov), iov->rlen, iov->rlen) ? -1 : 0;
}

/* The other gateway's MAC is known (configured or learned); else ask, count, -1. */
static int ipsec_remote_mac(struct ipsec *is, struct ns_worker *w)
{
	if (is->has_remote_mac || !nf_neigh_lookup(&is->tunnel_neigh, is->remote, is->remote_mac))
		return 0;
	nf_neigh_probe(&is->tunnel_neigh, w, is->tunnel_if, is->tunnel_mac, is->local, is->remote);
	ipsec_count(&is->no_mac);
	return -1;
}

static int ipsec_dst_mac(struct ipsec *is, struct ns_worker *w, uint32_t dst, uint8_t mac[6])
{
	if (!nf_neigh_lookup(&is->plain_neigh, dst, mac))
		return 0;
	nf_neigh_probe(&is->plain_neigh, w, is->plain_if, is->plain_mac, is->plain_addr, dst);
	return -1;
}

/* An ESP packet for us into the inner packet, in place, out of the plain side. */
static void ipsec_decrypt(struct ipsec *is, struct ns_worker *w, struct netslice_iov *iov,
			  const struct ns_pkt *p)
{
	uint8_t *f = ns_iov_data(iov), *esp = f + p->l4_off, *ct, nonce[12], nh;
	uint32_t esp_len = p->l3_len - (p->l4_off - p->l3_off), seq32, ct_len, inner, dst;
	uint8_t outer_tos = p->data[p->l3_off + 1];
	struct ipsec_worker *iw = ns_worker_priv(w);
	struct ns_pkt q;
	uint64_t seq;
	int len;

	if (esp_len < ESP_HDR + ESP_IV + 4 + ESP_ICV || memcmp(esp, &is->in.spi, 4)) {
		ipsec_count(&is->bad_spi);
		ns_iov_drop(iov);
		return;
	}
	memcpy(&seq32, esp + 4, 4);
	seq = ntohl(seq32);
	if (ipsec_replay_drop(is, iov, seq, 0))
		return;
	ct = esp + ESP_HDR + ESP_IV;
	ct_len = esp_len - ESP_HDR - ESP_IV - ESP_ICV;
	ipsec_nonce(nonce, &is->in, esp + ESP_HDR);
	if (EVP_DecryptInit_ex(iw->dec, NULL, NULL, NULL, nonce) != 1 ||
	    EVP_DecryptUpdate(iw->dec, NULL, &len, esp, ESP_HDR) != 1 ||
	    EVP_DecryptUpdate(iw->dec, ct, &len, ct, (int)ct_len) != 1 ||
	    EVP_CIPHER_CTX_ctrl(iw->dec, EVP_CTRL_GCM_SET_TAG, ESP_ICV, ct + ct_len) != 1 ||
	    EVP_DecryptFinal_ex(iw->dec, ct + len, &len) != 1) {
		ipsec_count(&is->auth_failed);
		ns_iov_drop(iov);
		return;
	}
	/* Authentic: now it counts against the window (a race loser is a replay). */
	if (ipsec_replay_drop(is, iov, seq, 1))
		return;
	nh = ct[ct_len - 1];
	if ((uint32_t)ct[ct_len - 2] + 2 + 20 > ct_len || nh != IPPROTO_IPIP) {
		ipsec_count(&is->dropped_other);
		ns_iov_drop(iov);
		return;
	}
	inner = ct_len - 2 - ct[ct_len - 2];
	ipsec_count(&is->decrypted);
	if (ipsec_ecn_decap(ct, outer_tos)) {
		ipsec_count(&is->ecn_dropped);
		ns_iov_drop(iov);
		return;
	}
	memmove(f + ETH_HDR, ct, inner);
	iov->rlen = ETH_HDR + inner;
	if (ns_pkt_parse(&q, f, iov->rlen, iov->rlen) || q.family != AF_INET) {
		ipsec_count(&is->dropped_other);
		ns_iov_drop(iov);
		return;
	}
	/* Forwarded to the plain side: one hop less, or an error back through the tunnel. */
	if (ns_pkt_dec_ttl(&q)) {
		if (ipsec_remote_mac(is, w) || ipsec_time_exceeded(is, iov, &q))
			ns_iov_drop(iov);
		else
			ipsec_encrypt(is, iw, iov, &q);
		return;
	}
	memcpy(&dst, f + ETH_HDR + 16, 4);
	if (ipsec_dst_mac(is, w, dst, f)) {
		ipsec_count(&is->no_mac);
		ns_iov_drop(iov);
		return;
	}
	memcpy(f + 6, is->plain_mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	iov->action = NETSLICE_TX_IFINDEX;
	iov->ifindex = (uint32_t)is->plain_if;
}

static void ipsec_arp(struct ipsec *is, struct netslice_iov *iov, struct ns_pkt *p, int plain)
{
	uint32_t ours = plain ? is->plain_addr : is->local;
	const uint8_t *mac = plain ? is->plain_mac : is->tunnel_mac;

	nf_neigh_arp(plain ? &is->plain_neigh : &is->tunnel_neigh, p, ours);
	if (ns_arp_answer(p, ours, mac)) {
		ipsec_count(&is->arp_answered);
		iov->action = NETSLICE_TX_IFINDEX;	/* back where it came from */
		return;
	}
	ns_iov_drop(iov);	/* a router: ARP stays on its wire */
}

static void ipsec_one(struct ipsec *is, struct ns_worker *w, struct netslice_iov *iov)
{
	int plain = (int)iov->ifindex == is->plain_if;
	struct ns_pkt p;
	uint32_t dst;

	if (!plain && (int)iov->ifindex != is->tunnel_if) {
		ipsec_count(&is->dropped_other);
		ns_iov_drop(iov);
		return;
	}
	if (iov->flags & (NETSLICE_RX_CUT | NETSLICE_RX_TRUNCATED | NETSLICE_RX_TRIMMED)) {
		ipsec_count(&is->not_whole);
		ns_iov_drop(iov);
		return;
	}
	if (ns_pkt_parse(&p, ns_iov_data(iov), iov->rlen, iov->wire_len) || p.vlans) {
		ipsec_count(&is->dropped_other);
		ns_iov_drop(iov);
		return;
	}
	if (p.eth_type == ETHERTYPE_ARP) {
		ipsec_arp(is, iov, &p, plain);
		return;
	}
	/* IPv4 only, inside and out; anything else stays on its wire. */
	if (p.family != AF_INET) {
		ipsec_count(&is->dropped_other);
		ns_iov_drop(iov);
		return;
	}
	memcpy(&dst, p.data + p.l3_off + 16, 4);
	if (plain) {
		if (dst == is->plain_addr) {
			ipsec_count(&is->dropped_other);	/* to the gateway itself */
			ns_iov_drop(iov);
			return;
		}
		if (ipsec_remote_mac(is, w)) {
			ns_iov_drop(iov);
			return;
		}
		/* A router for the plain hosts: one hop less, or time exceeded back to them. */
		if (ns_pkt_dec_ttl(&p)) {
			if (ipsec_time_exceeded(is, iov, &p)) {
				ns_iov_drop(iov);
				return;
			}
			iov->action = NETSLICE_TX_IFINDEX;	/* back where it came from */
			return;
		}
		ipsec_encrypt(is, ns_worker_priv(w), iov, &p);
		return;
	}
	if (dst == is->local && p.l4_proto == IPPROTO_ESP && !p.frag) {
		ipsec_decrypt(is, w, iov, &p);
		return;
	}
	ipsec_count(&is->dropped_other);
	ns_iov_drop(iov);
}

static void ipsec_process(struct ns_worker *w, struct netslice_iov *iov, unsigned int n,
			  void *arg)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ipsec_one(arg, w, &iov[i]);
}

static void ipsec_report(struct json *j, FILE *f, void *arg)
{
	static const struct {
		const char *name, *help;
	} counters[] = {
		{ "encrypted", "Packets encrypted and sent into the tunnel." },
		{ "decrypted", "ESP packets authenticated and decrypted." },
		{ "dropped_replay", "ESP packets dropped: seen before (replayed)." },
		{ "dropped_too_old", "ESP packets dropped: behind the replay window." },
		{ "dropped_auth", "ESP packets dropped: authentication failed." },
		{ "dropped_spi", "ESP packets dropped: an SPI no SA has." },
		{ "dropped_not_whole", "Packets dropped: not read whole." },
		{ "dropped_too_big", "Packets dropped: too big to encrypt." },
		{ "dropped_no_mac", "Packets dropped: no MAC known for the next hop." },
		{ "dropped_other", "Packets dropped for another reason." },
		{ "arp_answered", "ARP requests for nf-ipsec's addresses answered." },
		{ "ttl_expired", "Packets whose TTL ran out: time exceeded sent." },
		{ "dropped_ecn", "ESP packets dropped: CE on a not-ECT packet (RFC 6040)." },
	};
	struct ipsec *is = arg;
	const uint64_t *v[] = {
		&is->encrypted, &is->decrypted, &is->replayed, &is->too_old, &is->auth_failed,
		&is->bad_spi,
		&is->not_whole, &is->too_big, &is->no_mac, &is->dropped_other, &is->arp_answered,
		&is->ttl_expired, &is->ecn_dropped,
	};
	unsigned int i;

	_Static_assert(sizeof(v) / sizeof(v[0]) == sizeof(counters) / sizeof(counters[0]),
		       "a name for every counter");
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		if (j)
			json_counter(j, counters[i].name, ns_worker_counter(v[i]), counters[i].help);
		else
			fprintf(f, "%s%s %llu", i % 5 ? ", " : "\n  ", counters[i].name,
				(unsigned long long)ns_worker_counter(v[i]));
	}
	if (j)
		json_gauge(j, "seq_out", ns_worker_counter(&is->seq_out),
			   "The last ESP sequence number sent.");
	else
		fprintf(f, "\n  last sequence number sent %llu\n",
			(unsigned long long)ns_worker_counter(&is->seq_out));
}

/*
 * SPI and key: "SPI HEX", HEX = key || 4-byte salt (AES-128 or AES-256).
 * NULL, or what is wrong: never the key itself, which would end up in logs.
 */
static const char *ipsec_parse_sa(struct ipsec_sa *sa, const char *spi, const char *hex)
{
	size_t n = strlen(hex), i;
	uint8_t raw[36];
	unsigned long v;

	if (conf_uint(spi, 0, UINT32_MAX, true, &v))
		return "the SPI is not a 32-bit number";
	if (v < 256)
		return "SPIs 0 to 255 are reserved (RFC 4303 2.1)";
	if (n != 40 && n != 72)
		return "the key is not 40 or 72 hex digits (an AES-128 or AES-256 key, "
		       "then a 4-byte salt)";
	for (i = 0; i < n; i++)
		if (!((hex[i] >= '0' && hex[i] <= '9') || ((hex[i] | 0x20) >= 'a' &&
							   (hex[i] | 0x20) <= 'f')))
			return "the key is not hexadecimal";
	for (i = 0; i < n / 2; i++)
		if (sscanf(hex + 2 * i, "%2hhx", &raw[i]) != 1)
			return "the key is not hexadecimal";
	sa->spi = htonl((uint32_t)v);
	sa->key_len = (unsigned int)(n / 2 - 4);
	memcpy(sa->key, raw, sa->key_len);
	memcpy(sa->salt, raw + sa->key_len, 4);
	return NULL;
}

static const char *ipsec_addr(const char *s, uint32_t *a)
{
	return inet_pton(AF_INET, s, a) == 1 ? NULL : "not an IPv4 address";
}

static const char *const ipsec_settings[] = {
	"plain", "tunnel", "plain-address", "local", "remote", "remote-mac", "sa-out",
	"sa-in", "replay-window",
};

#define IPSEC_SETTINGS (sizeof(ipsec_settings) / sizeof(ipsec_settings[0]))

/* The setting's index, or -1. */
static int ipsec_setting(const char *k)
{
	size_t i;

	for (i = 0; i < IPSEC_SETTINGS; i++)
		if (!strcmp(k, ipsec_settings[i]))
			return (int)i;
	return -1;
}

static int ipsec_load(struct ipsec *is)
{
	unsigned int sa_line[2] = { 0, 0 }, seen[IPSEC_SETTINGS] = { 0 };	/* sa-in, sa-out */
	unsigned long window;
	const char *why, *k, *a, *b;
	struct stat st;
	struct conf c;
	int got, set;

	if (conf_open(&c, is->config)) {
		nf_err("cannot read config %s: %s", is->config, strerror(errno));
		return -1;
	}
	if (!fstat(fileno(c.f), &st) && (st.st_mode & 077))
		nf_err("warning: %s holds keys and is readable by others (chmod 600)", is->config);
	while ((got = conf_next(&c)) > 0) {
		k = c.word[0];
		a = c.n > 1 ? c.word[1] : NULL;
		b = c.n > 2 ? c.word[2] : NULL;
		set = ipsec_setting(k);
		why = set < 0 ? "unknown setting" : c.n < 2 ? "a value is missing" : NULL;
		if (why)
			;
		else if (seen[set])
			why = "set twice";
		else if (!strcmp(k, "sa-out") || !strcmp(k, "sa-in"))
			why = c.n != 3 ? "it takes SPI and KEY" :
			      ipsec_parse_sa(k[3] == 'o' ? &is->out : &is->in, a, b) ?:
			      (sa_line[k[3] == 'o'] = c.lineno, NULL);
		else if (c.n != 2)
			why = "it takes one value";
		else if (!strcmp(k, "plain") || !strcmp(k, "tunnel"))
			why = strlen(a) < sizeof(is->plain_name) ?
			      (strcpy(k[0] == 'p' ? is->plain_name : is->tunnel_name, a), NULL) :
			      "the interface name is too long";
		else if (!strcmp(k, "plain-address"))
			why = ipsec_addr(a, &is->plain_addr);
		else if (!strcmp(k, "local"))
			why = ipsec_addr(a, &is->local);
		else if (!strcmp(k, "remote"))
			why = ipsec_addr(a, &is->remote);
		else if (!strcmp(k, "remote-mac"))
			why = ns_mac_parse(a, is->remote_mac) ? "not a MAC address" :
			      (is->has_remote_mac = 1, NULL);
		else if (!strcmp(k, "replay-window"))
			why = conf_uint(a, 1, ESP_MAX_WINDOW, false, &window) ?
			      "not a number from 1 to 4096" : (is->window = window, NULL);
		if (why) {
			/* The setting's name, not its value: a mistyped sa- line holds a key. */
			if (set >= 0 && seen[set])
				conf_error(&c, 0, "%s: set twice (line %u)", k, seen[set]);
			else
				conf_error(&c, 0, "%s: %s", k, why);
			got = -1;
			break;
		}
		seen[set] = c.lineno;
	}
	conf_close(&c);
	if (got < 0)
		return -1;
	/*
	 * One key both ways would have both gateways encrypt under it with
	 * the same nonce sequence (each counts from 1): AES-GCM's nonce reuse,
	 * whatever the salts. Named by line, never by the key.
	 */
	if (is->out.key_len && is->out.key_len == is->in.key_len &&
	    !CRYPTO_memcmp(is->out.key, is->in.key, is->out.key_len)) {
		nf_err("%s:%u and %u: sa-out and sa-in have the same key: each direction "
		       "needs its own", is->config, sa_line[1] < sa_line[0] ? sa_line[1] : sa_line[0],
		       sa_line[1] < sa_line[0] ? sa_line[0] : sa_line[1]);
		return -1;
	}
	if (!*is->plain_name || !*is->tunnel_name || !is->plain_addr || !is->local ||
	    !is->remote || !is->out.key_len || !is->in.key_len) {
		nf_err("%s: plain, tunnel, plain-address, local, remote, sa-out and sa-in "
		       "are required", is->config);
		return -1;
	}
	return 0;
}

enum { OPT_CONFIG = NF_OPT_BASE };

static int ipsec_option(void *arg, int val, const char *value)
{
	struct ipsec *is = arg;

	(void)val;
	is->config = value;
	return 0;
}

static int ipsec_setup(void *arg)
{
	struct ipsec *is = arg;

	if (!is->config) {
		nf_err("no configuration (--config FILE)");
		return -1;
	}
	if (ipsec_load(is))
		return -1;
	is->plain_if = nf_ifindex(is->plain_name);
	is->tunnel_if = is->plain_if ? nf_ifindex(is->tunnel_name) : 0;
	if (!is->tunnel_if || nf_ifmac(is->plain_name, is->plain_mac) ||
	    nf_ifmac(is->tunnel_name, is->tunnel_mac))
		return -1;
	nf_neigh_init(&is->plain_neigh);
	nf_neigh_init(&is->tunnel_neigh);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ NULL, 0, NULL, 0 },
	};
	static const struct nf ipsec = {
		.name = "nf-ipsec",
		.summary = "An ESP tunnel gateway (RFC 4303, AES-GCM); two form a tunnel.",
		.usage = "      --config FILE    gateway configuration (required), lines of:\n"
			 "  plain IF, tunnel IF, plain-address ADDR, local ADDR, remote ADDR,\n"
			 "  [remote-mac MAC], sa-out SPI HEXKEY, sa-in SPI HEXKEY,\n"
			 "  [replay-window N (1024, at most 4096)]\n"
			 "HEXKEY is the AES-128 or AES-256 key followed by a 4-byte salt (40 or\n"
			 "72 hex digits). The tunnel link's MTU must exceed the plain side's by 57.\n",
		.cut = "off",
		.options = options,
		.arg = &ipsec_state,
		.option = ipsec_option,
		.setup = ipsec_setup,
		.worker_init = ipsec_worker_init,
		.worker_fini = ipsec_worker_fini,
		.process = ipsec_process,
		.sent = ipsec_sent,
		.report = ipsec_report,
	};

	return nf_main(argc, argv, &ipsec);
}
