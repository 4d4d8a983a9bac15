// Hands bytes the renderer assembled (a full log, a file taken out of a tar) to the browser's
// download, under the name the user should see.
export function saveFile(parts: BlobPart[], name: string, type = 'application/octet-stream'): void {
  const url = URL.createObjectURL(new Blob(parts, { type }));
  downloadUrl(url, name);
  URL.revokeObjectURL(url);
}

/** Starts the browser's download of what the gateway streams from `url` (nothing passes the renderer). */
export function downloadUrl(url: string, name: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
}
