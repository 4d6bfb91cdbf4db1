export interface Manifest {
  ignore: string[];
  allow: string[];
}
export function parseManifest(text: string): Manifest;
export function readManifest(root: string): Manifest;
export function allowed(rel: string, manifest: Manifest): boolean;
export function filesUnder(dir: string, skip?: Set<string>): string[];
