import { describe, expect, test } from 'bun:test';
import { blockedAddressReason, isBlockedAddress, parseIpv6 } from './is-blocked-address.ts';

describe('isBlockedAddress', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'this network / unspecified'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved / broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'unique local (private)'],
    ['fd12:3456::1', 'unique local (private)'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['::ffff:10.1.2.3', 'IPv4-mapped private'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
    ['64:ff9b::10.0.0.1', 'NAT64 private'],
    ['2002:7f00:1::', '6to4 loopback'],
    ['2001:db8::1', 'documentation'],
    ['2001::1', 'Teredo'],
    ['localhost', 'not an IP address'],
    ['example.com', 'not an IP address'],
    ['1.2.3', 'not an IP address'],
    ['01.2.3.4', 'not an IP address'],
    ['1::2::3', 'not an IP address'],
    ['', 'not an IP address'],
  ])('%s is blocked (%s)', (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
    expect(isBlockedAddress(address)).toBe(true);
  });

  test.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.255.255',
    '93.184.216.34',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
  ])('%s is allowed', (address) => {
    expect(blockedAddressReason(address)).toBeNull();
    expect(isBlockedAddress(address)).toBe(false);
  });

  test('parses the IPv6 forms', () => {
    expect(parseIpv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIpv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIpv6('1::8')).toEqual([1, 0, 0, 0, 0, 0, 0, 8]);
    expect(parseIpv6('1:2:3:4:5:6:1.2.3.4')).toEqual([1, 2, 3, 4, 5, 6, 0x102, 0x304]);
    expect(parseIpv6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(parseIpv6('1:2:3:4:5:6:7:8:9')).toBeNull();
    expect(parseIpv6('1:2:3:4:5:6:7')).toBeNull();
    expect(parseIpv6('1:2:3:4::5:6:7:8')).toBeNull();
    expect(parseIpv6('12345::')).toBeNull();
    expect(parseIpv6(':1::')).toBeNull();
  });
});
