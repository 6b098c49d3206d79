/** addressBucket: the key per-address throttling counts a caller under (one IPv4 address, one IPv6 /64). */
import { addressBucket } from '../../classes/_platform/address-bucket';

test('an IPv4 address is its own bucket', () => {
  expect(addressBucket('203.0.113.7')).toBe('203.0.113.7');
  expect(addressBucket('127.0.0.1')).toBe('127.0.0.1');
  expect(addressBucket('203.0.113.8')).not.toBe(addressBucket('203.0.113.7'));
});

test('an IPv4-mapped IPv6 address is the IPv4 client, however it is written', () => {
  for (const ip of [
    '::ffff:1.2.3.4',
    '::FFFF:1.2.3.4',
    '0:0:0:0:0:ffff:1.2.3.4',
    '::ffff:102:304',
    '0000:0000:0000:0000:0000:FFFF:0102:0304',
  ]) {
    expect([ip, addressBucket(ip)]).toEqual([ip, '1.2.3.4']);
  }
});

test('an IPv6 address is bucketed by its /64, in every written form', () => {
  const same = [
    '2001:db8:0:1::1',
    '2001:DB8:0:1::ffff',
    '2001:0db8:0000:0001:0000:0000:0000:0001',
    '2001:db8:0:1:aa:bb:cc:dd',
    '2001:db8::1:0:0:0:1',
    '2001:db8:0:1::1.2.3.4',
  ];
  for (const ip of same) expect([ip, addressBucket(ip)]).toEqual([ip, '2001:db8:0:1::/64']);
  // the next /64, and one that differs only in the top group
  expect(addressBucket('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64');
  expect(addressBucket('2001:db9:0:1::1')).toBe('2001:db9:0:1::/64');
  // compression inside the first four groups
  expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
  expect(addressBucket('::1')).toBe('0:0:0:0::/64');
  expect(addressBucket('::')).toBe('0:0:0:0::/64');
  expect(addressBucket('fe80::')).toBe('fe80:0:0:0::/64');
});

test('a zone id is dropped', () => {
  expect(addressBucket('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  expect(addressBucket('fe80::2%25')).toBe('fe80:0:0:0::/64');
  expect(addressBucket('fe80::1%')).toBe('invalid');
});

test('no address is "none"; anything that is not an address shares one bucket', () => {
  expect(addressBucket(undefined)).toBe('none');
  expect(addressBucket(null)).toBe('none');
  expect(addressBucket('')).toBe('none');
  for (const ip of [
    'not an address',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '2001:db8:::1',
    '2001:db8::1::2',
    '1:2:3:4:5:6:7:8:9',
    'g::1',
    '12345::1',
    '::ffff:1.2.3.256',
    '1.2.3.4%eth0',
    'x'.repeat(200),
  ]) {
    expect([ip, addressBucket(ip)]).toEqual([ip, 'invalid']);
  }
});
