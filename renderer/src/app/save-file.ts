// Hands bytes the renderer assembled (a full log, a file taken out of a tar) to the browser's
// download, under the name the user should see.
export function saveFile(parts: BlobPart[], name: string, type = 'application/octet-stream'): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob(parts, { type }));
  a.download = name;
  a.click();
  URL.revokeObjectURL(a.href);
}
