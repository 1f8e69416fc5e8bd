// SPDX-License-Identifier: GPL-2.0
/*
 * nf-ipsec: an ESP tunnel gateway (RFC 4303, tunnel mode) with AES-GCM
 * (RFC 4106) through OpenSSL's libcrypto, static keys from a config file
 * and an anti-replay window. It needs whole packets: slicing is off.
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
 * Each worker has its own cipher contexts; the outbound sequence counter
 * is one atomic, the replay window one mutex.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "neigh.h"
#include "nf.h"

#define ESP_HDR 8		/* SPI, sequence */
#define ESP_IV 8
#define ESP_ICV 16
#define ESP_MAX_WINDOW 1024
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
	uint64_t seq_out;		/* last sequence number sent */

	pthread_mutex_t replay_lock;	/* protects replay_top and replay_bits */
	uint64_t replay_top;		/* highest sequence number accepted */
	uint64_t replay_bits[ESP_MAX_WINDOW / 64];	/* bit (top - seq) */

	struct nf_neigh_table plain_neigh, tunnel_neigh;
	uint64_t encrypted, decrypted, replayed, auth_failed, bad_spi, not_whole,
		 too_big, no_mac, dropped_other, arp_answered;
};

static struct ipsec ipsec_state = {
	.window = 64,
	.replay_lock = PTHREAD_MUTEX_INITIALIZER,
};

struct ipsec_worker {
	EVP_CIPHER_CTX *enc, *dec;
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
	w->priv = iw;
	return 0;
}

static void ipsec_worker_fini(struct ns_worker *w, void *arg)
{
	struct ipsec_worker *iw = w->priv;

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

/* Ethernet + IPv4 header of an ESP packet from local to remote, len bytes of ESP. */
static void ipsec_outer(struct ipsec *is, uint8_t *f, uint32_t esp_len, uint64_t seq)
{
	uint8_t *ip = f + ETH_HDR;
	uint16_t v;

	memcpy(f, is->remote_mac, 6);
	memcpy(f + 6, is->tunnel_mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, OUTER_IP);
	ip[0] = 0x45;
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
	uint64_t seq, iv;
	int len;

	pad = (4 - (inner + 2) % 4) % 4;
	pt_len = inner + pad + 2;
	esp_len = ESP_HDR + ESP_IV + pt_len + ESP_ICV;
	if (ETH_HDR + OUTER_IP + esp_len > iov->len) {
		ipsec_count(&is->too_big);
		ns_iov_drop(iov);
		return;
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
	ipsec_outer(is, f, esp_len, seq);
	iov->rlen = ETH_HDR + OUTER_IP + esp_len;
	iov->action = NETSLICE_TX_IFINDEX;
	iov->ifindex = (uint32_t)is->tunnel_if;
	ipsec_count(&is->encrypted);
}

/* Replay window (RFC 4303 3.4.3): 0 if seq may be accepted; update too if asked. */
static int ipsec_replay(struct ipsec *is, uint64_t seq, int update)
{
	uint64_t diff, shift, i;
	int ret = 0;

	pthread_mutex_lock(&is->replay_lock);
	if (!seq) {
		ret = -1;
	} else if (seq > is->replay_top) {
		if (update) {
			shift = seq - is->replay_top;
			if (shift >= is->window) {
				memset(is->replay_bits, 0, sizeof(is->replay_bits));
			} else {
				for (i = is->window; i-- > shift;)
					if (is->replay_bits[(i - shift) / 64] >> ((i - shift) % 64) & 1)
						is->replay_bits[i / 64] |= 1ULL << (i % 64);
					else
						is->replay_bits[i / 64] &= ~(1ULL << (i % 64));
				for (i = 0; i < shift; i++)
					is->replay_bits[i / 64] &= ~(1ULL << (i % 64));
			}
			is->replay_top = seq;
			is->replay_bits[0] |= 1;
		}
	} else {
		diff = is->replay_top - seq;
		if (diff >= is->window || (is->replay_bits[diff / 64] >> (diff % 64) & 1))
			ret = -1;
		else if (update)
			is->replay_bits[diff / 64] |= 1ULL << (diff % 64);
	}
	pthread_mutex_unlock(&is->replay_lock);
	return ret;
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
	struct ipsec_worker *iw = w->priv;
	uint64_t seq;
	int len;

	if (esp_len < ESP_HDR + ESP_IV + 4 + ESP_ICV || memcmp(esp, &is->in.spi, 4)) {
		ipsec_count(&is->bad_spi);
		ns_iov_drop(iov);
		return;
	}
	memcpy(&seq32, esp + 4, 4);
	seq = ntohl(seq32);
	if (ipsec_replay(is, seq, 0)) {
		ipsec_count(&is->replayed);
		ns_iov_drop(iov);
		return;
	}
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
	if (ipsec_replay(is, seq, 1)) {
		ipsec_count(&is->replayed);
		ns_iov_drop(iov);
		return;
	}
	nh = ct[ct_len - 1];
	if ((uint32_t)ct[ct_len - 2] + 2 + 20 > ct_len || nh != IPPROTO_IPIP) {
		ipsec_count(&is->dropped_other);
		ns_iov_drop(iov);
		return;
	}
	inner = ct_len - 2 - ct[ct_len - 2];
	memcpy(&dst, ct + 16, 4);
	if (ipsec_dst_mac(is, w, dst, f)) {
		ipsec_count(&is->no_mac);
		ns_iov_drop(iov);
		return;
	}
	memcpy(f + 6, is->plain_mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memmove(f + ETH_HDR, ct, inner);
	iov->rlen = ETH_HDR + inner;
	iov->action = NETSLICE_TX_IFINDEX;
	iov->ifindex = (uint32_t)is->plain_if;
	ipsec_count(&is->decrypted);
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
	if (iov->flags & (NETSLICE_RX_SLICED | NETSLICE_RX_TRUNCATED | NETSLICE_RX_TRIMMED)) {
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
		if (!is->has_remote_mac &&
		    nf_neigh_lookup(&is->tunnel_neigh, is->remote, is->remote_mac)) {
			nf_neigh_probe(&is->tunnel_neigh, w, is->tunnel_if, is->tunnel_mac,
				       is->local, is->remote);
			ipsec_count(&is->no_mac);
			ns_iov_drop(iov);
			return;
		}
		ipsec_encrypt(is, w->priv, iov, &p);
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
	static const char *const names[] = {
		"encrypted", "decrypted", "dropped_replay", "dropped_auth", "dropped_spi",
		"dropped_not_whole", "dropped_too_big", "dropped_no_mac", "dropped_other",
		"arp_answered",
	};
	struct ipsec *is = arg;
	const uint64_t *v[] = {
		&is->encrypted, &is->decrypted, &is->replayed, &is->auth_failed, &is->bad_spi,
		&is->not_whole, &is->too_big, &is->no_mac, &is->dropped_other, &is->arp_answered,
	};
	unsigned int i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		if (j)
			json_u64(j, names[i], ns_worker_counter(v[i]));
		else
			fprintf(f, "%s%s %llu", i % 5 ? ", " : "\n  ", names[i],
				(unsigned long long)ns_worker_counter(v[i]));
	}
	if (j)
		json_u64(j, "seq_out", ns_worker_counter(&is->seq_out));
	else
		fprintf(f, "\n  last sequence number sent %llu\n",
			(unsigned long long)ns_worker_counter(&is->seq_out));
}

/* SPI and key: "SPI HEX", HEX = key || 4-byte salt (AES-128 or AES-256). */
static int ipsec_parse_sa(struct ipsec_sa *sa, const char *spi, const char *hex)
{
	size_t n = strlen(hex), i;
	uint8_t raw[36];
	unsigned long v;
	char *end;

	v = strtoul(spi, &end, 0);
	if (*end || !*spi || v < 256 || v > UINT32_MAX)
		return -1;	/* SPIs 1-255 are reserved (RFC 4303 2.1) */
	if (n != 40 && n != 72)
		return -1;
	for (i = 0; i < n / 2; i++)
		if (sscanf(hex + 2 * i, "%2hhx", &raw[i]) != 1)
			return -1;
	sa->spi = htonl((uint32_t)v);
	sa->key_len = (unsigned int)(n / 2 - 4);
	memcpy(sa->key, raw, sa->key_len);
	memcpy(sa->salt, raw + sa->key_len, 4);
	return 0;
}

static int ipsec_addr(const char *s, uint32_t *a)
{
	return inet_pton(AF_INET, s, a) == 1 ? 0 : -1;
}

static int ipsec_load(struct ipsec *is)
{
	char line[256], k[32], a[128], b[128], where[300];
	unsigned int lineno = 0;
	struct stat st;
	int n, bad;
	FILE *f;

	f = fopen(is->config, "re");
	if (!f) {
		nf_err("cannot read config %s: %s", is->config, strerror(errno));
		return -1;
	}
	if (!fstat(fileno(f), &st) && (st.st_mode & 077))
		nf_err("warning: %s holds keys and is readable by others (chmod 600)", is->config);
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		snprintf(where, sizeof(where), "%s:%u", is->config, lineno);
		line[strcspn(line, "#\r\n")] = '\0';
		n = sscanf(line, "%31s %127s %127s", k, a, b);
		if (n <= 0)
			continue;
		bad = n < 2;
		if (bad)
			;
		else if (!strcmp(k, "plain") && strlen(a) < sizeof(is->plain_name))
			strcpy(is->plain_name, a);
		else if (!strcmp(k, "tunnel") && strlen(a) < sizeof(is->tunnel_name))
			strcpy(is->tunnel_name, a);
		else if (!strcmp(k, "plain-address"))
			bad = ipsec_addr(a, &is->plain_addr);
		else if (!strcmp(k, "local"))
			bad = ipsec_addr(a, &is->local);
		else if (!strcmp(k, "remote"))
			bad = ipsec_addr(a, &is->remote);
		else if (!strcmp(k, "remote-mac"))
			bad = ns_mac_parse(a, is->remote_mac) || !(is->has_remote_mac = 1);
		else if (!strcmp(k, "sa-out"))
			bad = n != 3 || ipsec_parse_sa(&is->out, a, b);
		else if (!strcmp(k, "sa-in"))
			bad = n != 3 || ipsec_parse_sa(&is->in, a, b);
		else if (!strcmp(k, "replay-window"))
			bad = sscanf(a, "%lu", &is->window) != 1 || !is->window ||
			      is->window > ESP_MAX_WINDOW;
		else
			bad = 1;
		if (bad) {
			nf_err("%s: bad line '%s'", where, line);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
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
			 "  [replay-window N (64, at most 1024)]\n"
			 "HEXKEY is the AES-128 or AES-256 key followed by a 4-byte salt (40 or\n"
			 "72 hex digits). The tunnel link's MTU must exceed the plain side's by 57.\n",
		.slicing = "off",
		.options = options,
		.arg = &ipsec_state,
		.option = ipsec_option,
		.setup = ipsec_setup,
		.worker_init = ipsec_worker_init,
		.worker_fini = ipsec_worker_fini,
		.process = ipsec_process,
		.report = ipsec_report,
	};

	return nf_main(argc, argv, &ipsec);
}
