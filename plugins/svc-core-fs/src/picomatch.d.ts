/** The part of picomatch 4 that svc-core-fs uses (the package ships no types). */
declare namespace picomatch {
  interface Options {
    dot?: boolean;
    basename?: boolean;
    nocase?: boolean;
  }
  interface ScanResult {
    base: string;
    glob: string;
    isGlob: boolean;
    negated: boolean;
  }
}
declare function picomatch(
  glob: string | string[],
  options?: picomatch.Options,
): (path: string) => boolean;
declare namespace picomatch {
  function scan(input: string, options?: picomatch.Options): picomatch.ScanResult;
}
export default picomatch;
