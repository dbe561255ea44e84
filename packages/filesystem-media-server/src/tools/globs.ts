import { minimatch } from 'minimatch';

/** Glob match on a relative path; dot files match like any other. */
export function matchesGlob(relativePath: string, pattern: string): boolean {
  return minimatch(relativePath, pattern, { dot: true });
}

/**
 * directory_tree's exclusion rule (the official one): a pattern with `*` is a glob on the relative path;
 * a plain name also excludes that name at any depth, and everything below it.
 */
export function isExcludedFromTree(relativePath: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) =>
    pattern.includes('*') ? matchesGlob(relativePath, pattern) : matchesGlob(relativePath, pattern) || matchesGlob(relativePath, `**/${pattern}`) || matchesGlob(relativePath, `**/${pattern}/**`),
  );
}
