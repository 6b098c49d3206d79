/**
 * The key a caller's address is throttled under (per-address rate limits of
 * the sign-in operations): one bucket per IPv4 address, and one per IPv6 /64.
 *
 *   addressBucket('203.0.113.7')              → '203.0.113.7'
 *   addressBucket('::ffff:203.0.113.7')       → '203.0.113.7'   (IPv4-mapped: the IPv4 client itself)
 *   addressBucket('2001:DB8:0:1:aa::1')       → '2001:db8:0:1::/64'
 *   addressBucket('2001:db8::1:0:0:1')        → '2001:db8:0:0::/64'
 *   addressBucket('fe80::1%eth0')             → 'fe80:0:0:0::/64' (the zone id dropped)
 *   addressBucket(undefined)                  → 'none'            (a call from a class, a job, a task)
 *   addressBucket('not an address')           → 'invalid'
 *
 * A /64 is the smallest IPv6 network handed to a subscriber (a home, a phone,
 * a cloud host), whose owner picks any address in it at will: counted per
 * address, one client would have 2^64 fresh buckets. Counted per /64, it has
 * one, as an IPv4 client has. Whatever is no address shares one bucket, so
 * made-up values cannot mint buckets either.
 */
import { isIPv4, isIPv6 } from 'node:net';

export const NO_ADDRESS_BUCKET = 'none';
export const INVALID_ADDRESS_BUCKET = 'invalid';

export function addressBucket(ip: string | null | undefined): string {
  if (ip === undefined || ip === null || ip === '') return NO_ADDRESS_BUCKET;
  if (typeof ip !== 'string' || ip.length > 100) return INVALID_ADDRESS_BUCKET; // an IPv6 address with a zone is far shorter
  const trimmed = ip.trim();
  if (isIPv4(trimmed)) return trimmed;
  // a zone id (fe80::1%eth0) names the local interface, not the host
  const percent = trimmed.indexOf('%');
  const address = percent === -1 ? trimmed : trimmed.slice(0, percent);
  if (percent !== -1 && percent === trimmed.length - 1) return INVALID_ADDRESS_BUCKET;
  if (!isIPv6(address)) return INVALID_ADDRESS_BUCKET;
  const groups = ipv6Groups(address);
  if (!groups) return INVALID_ADDRESS_BUCKET;
  // ::ffff:a.b.c.d (however written): an IPv4 client on a dual-stack socket
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6] >> 8}.${groups[6] & 0xff}.${groups[7] >> 8}.${groups[7] & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** the eight 16-bit groups of an IPv6 address node:net accepted (compressed, with an IPv4 tail or not) */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIPv4(tail)) return null;
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const part = (s: string) => (s === '' ? [] : s.split(':'));
  const head = part(halves[0]);
  const rest = halves.length === 2 ? part(halves[1]) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  const groups = all.map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  return groups.every((g) => Number.isInteger(g)) ? groups : null;
}
