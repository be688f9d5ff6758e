/**
 * IP address parsing and classification for the SSRF guard. Everything that is not plain public
 * unicast is blocked: loopback, private, shared (CGNAT), link-local, unspecified, multicast,
 * reserved and documentation ranges, and IPv6 forms that embed one of those IPv4 addresses.
 */

/** Parses an IPv4 literal in any notation the URL standard accepts (`2130706433`, `0x7f.1`, `0177.0.0.1`). */
export function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0[xX][0-9a-fA-F]*$/.test(part)) {
      value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    } else if (/^0[0-7]+$/.test(part)) value = parseInt(part.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) value = parseInt(part, 10);
    else return null;
    numbers.push(value);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return null;
  return numbers.reduce((acc, n, i) => acc + n * 256 ** (3 - i), 0) + last;
}

/** Parses an IPv6 literal (brackets and a zone id allowed) into eight 16-bit words. */
export function parseIPv6(text: string): number[] | null {
  let s = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  s = s.replace(/%.*$/, "");
  if (!s.includes(":")) return null;
  const tail: number[] = [];
  const dotted = s.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const v4 = /^(\d{1,3}\.){3}\d{1,3}$/.test(dotted[2]) ? parseIPv4(dotted[2]) : null;
    if (v4 === null) return null;
    tail.push(v4 >>> 16, v4 & 0xffff);
    s = dotted[1].endsWith("::") ? dotted[1] : dotted[1].slice(0, -1);
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const words = (half: string) => (half === "" ? [] : half.split(":"));
  const head = words(halves[0]);
  const rest = halves.length === 2 ? words(halves[1]) : [];
  if ([...head, ...rest].some((w) => !/^[0-9a-fA-F]{1,4}$/.test(w))) return null;
  const known = head.length + rest.length + tail.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return null;
  const zeros = new Array(8 - known).fill(0);
  return [
    ...head.map((w) => parseInt(w, 16)),
    ...zeros,
    ...rest.map((w) => parseInt(w, 16)),
    ...tail,
  ];
}

const V4_BLOCKS: Array<[string, number, string]> = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared (CGNAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved"],
  ["192.88.99.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"],
  ["198.51.100.0", 24, "reserved"],
  ["203.0.113.0", 24, "reserved"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

const V4_TABLE = V4_BLOCKS.map(([base, bits, reason]) => ({
  base: parseIPv4(base)!,
  mask: (0xffffffff << (32 - bits)) >>> 0,
  reason,
}));

function v4Reason(ip: number): string | null {
  return V4_TABLE.find((row) => ((ip & row.mask) >>> 0) === row.base)?.reason ?? null;
}

function v6Reason(w: number[]): string | null {
  const zeroUpTo = (n: number) => w.slice(0, n).every((x) => x === 0);
  const embedded = (w[6] << 16 | w[7]) >>> 0;
  if (zeroUpTo(8)) return "unspecified";
  if (zeroUpTo(7) && w[7] === 1) return "loopback";
  if (zeroUpTo(5) && w[5] === 0xffff) return tagged("IPv4-mapped", v4Reason(embedded));
  if (zeroUpTo(6)) return "reserved";
  if (w[0] === 0x64 && w[1] === 0xff9b && w.slice(2, 6).every((x) => x === 0)) {
    return tagged("NAT64", v4Reason(embedded));
  }
  if (w[0] === 0x2002) return tagged("6to4", v4Reason((w[1] << 16 | w[2]) >>> 0));
  if ((w[0] & 0xfe00) === 0xfc00) return "private";
  if ((w[0] & 0xffc0) === 0xfe80) return "link-local";
  if ((w[0] & 0xffc0) === 0xfec0) return "private";
  if ((w[0] & 0xff00) === 0xff00) return "multicast";
  if (w[0] === 0x2001 && (w[1] === 0 || w[1] === 0xdb8)) return "reserved";
  if ((w[0] & 0xe000) !== 0x2000) return "reserved";
  return null;
}

function tagged(form: string, reason: string | null): string | null {
  return reason ? `${form} ${reason}` : null;
}

/** Why `address` must not be fetched ("loopback", "private", ...), or null for public unicast. */
export function blockedReason(address: string): string | null {
  const v4 = /^[0-9a-fA-FxX.]+$/.test(address) ? parseIPv4(address) : null;
  if (v4 !== null) return v4Reason(v4);
  const v6 = parseIPv6(address);
  return v6 ? v6Reason(v6) : null;
}

/** True when `host` is an IP literal in any notation (brackets allowed for IPv6). */
export function isIpLiteral(host: string): boolean {
  return (/^[0-9a-fA-FxX.]+$/.test(host) && parseIPv4(host) !== null) || parseIPv6(host) !== null;
}
