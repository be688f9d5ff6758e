/** HTML character reference decoding: numeric references and the commonly used named ones. */

const LATIN1 = (
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn " +
  "sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave " +
  "Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml " +
  "ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN " +
  "szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave " +
  "iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute " +
  "ucirc uuml yacute thorn yuml"
).split(" ");

const GREEK_UPPER = "Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi " +
  "Omicron Pi Rho - Sigma Tau Upsilon Phi Chi Psi Omega";
const GREEK_LOWER = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi " +
  "omicron pi rho sigmaf sigma tau upsilon phi chi psi omega";

const OTHERS: Record<string, number> = {
  amp: 38,
  lt: 60,
  gt: 62,
  quot: 34,
  apos: 39,
  OElig: 338,
  oelig: 339,
  Scaron: 352,
  scaron: 353,
  Yuml: 376,
  fnof: 402,
  circ: 710,
  tilde: 732,
  ensp: 8194,
  emsp: 8195,
  thinsp: 8201,
  zwnj: 8204,
  zwj: 8205,
  lrm: 8206,
  rlm: 8207,
  ndash: 8211,
  mdash: 8212,
  lsquo: 8216,
  rsquo: 8217,
  sbquo: 8218,
  ldquo: 8220,
  rdquo: 8221,
  bdquo: 8222,
  dagger: 8224,
  Dagger: 8225,
  bull: 8226,
  hellip: 8230,
  permil: 8240,
  prime: 8242,
  Prime: 8243,
  lsaquo: 8249,
  rsaquo: 8250,
  euro: 8364,
  trade: 8482,
  larr: 8592,
  uarr: 8593,
  rarr: 8594,
  darr: 8595,
  harr: 8596,
  lArr: 8656,
  rArr: 8658,
  hArr: 8660,
  minus: 8722,
  infin: 8734,
  asymp: 8776,
  ne: 8800,
  le: 8804,
  ge: 8805,
  check: 10003,
  nbhy: 8209,
  ZeroWidthSpace: 8203,
};

/** Named references this decoder knows, name to code point. */
export const NAMED: ReadonlyMap<string, number> = new Map([
  ...LATIN1.map((name, i) => [name, 160 + i] as [string, number]),
  ...GREEK_UPPER.split(" ").map((name, i) => [name, 913 + i] as [string, number]),
  ...GREEK_LOWER.split(" ").map((name, i) => [name, 945 + i] as [string, number]),
  ...Object.entries(OTHERS),
].filter(([name]) => name !== "-"));

/** Names still decoded without a trailing semicolon, as browsers do for legacy pages. */
const LEGACY = new Set(["amp", "lt", "gt", "quot", "nbsp", "copy", "reg"]);

const CP1252 = new TextDecoder("windows-1252");

function fromCodePoint(code: number): string {
  if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\uFFFD";
  if (code >= 0x80 && code <= 0x9f) return CP1252.decode(Uint8Array.of(code));
  return String.fromCodePoint(code);
}

const REFERENCE = /&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([a-zA-Z][a-zA-Z0-9]{1,31}))(;?)/g;

/** Decodes character references (`&amp;`, `&#39;`, `&#x1F600;`); unknown names are kept. */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(REFERENCE, (whole, dec, hex, name, semi, offset: number) => {
    if (!semi && text[offset + whole.length] === "=") return whole;
    if (dec !== undefined) return fromCodePoint(parseInt(dec, 10));
    if (hex !== undefined) return fromCodePoint(parseInt(hex, 16));
    const code = NAMED.get(name);
    if (code === undefined || (!semi && !LEGACY.has(name))) return whole;
    return String.fromCodePoint(code);
  });
}
