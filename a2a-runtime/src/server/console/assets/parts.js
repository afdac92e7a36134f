// Message and artifact parts as people read them: text, pretty JSON, images shown, files to
// download, links.

import { el } from './http.js';

/** A part's view. */
export function partView(part) {
  if ('text' in part) return el('pre', { text: part.text });
  if ('data' in part) return el('pre', { text: JSON.stringify(part.data, null, 2) });
  if ('raw' in part) return fileView(part);
  if ('url' in part) {
    // Only web links: a part could name a `javascript:` URL.
    const safe = /^https?:\/\//i.test(part.url);
    return safe
      ? el('a', {
          href: part.url,
          text: part.filename || part.url,
          rel: 'noopener noreferrer',
          target: '_blank',
        })
      : el('pre', { text: part.url });
  }
  return el('pre', { text: JSON.stringify(part) });
}

/** Inline bytes: an image is shown; every file can be downloaded under its name. */
function fileView(part) {
  const mediaType = part.mediaType || 'application/octet-stream';
  const name = part.filename || 'file';
  let bytes;
  try {
    bytes = Uint8Array.from(atob(part.raw), (c) => c.charCodeAt(0));
  } catch {
    return el('p', { class: 'hint', text: `${name}: not valid base64` });
  }
  const url = URL.createObjectURL(new Blob([bytes], { type: mediaType }));
  const download = el('a', {
    href: url,
    download: name,
    text: `Download ${name} (${mediaType}, ${bytes.length} bytes)`,
  });
  if (!mediaType.startsWith('image/')) return el('p', {}, download);
  return el(
    'figure',
    {},
    el('img', { src: url, alt: part.filename || 'image' }),
    el('figcaption', {}, download),
  );
}

/** An artifact: its name as a heading, then its parts. */
export function artifactView(artifact, heading = 'h3') {
  const view = el(
    'div',
    { class: 'artifact', 'data-artifact': artifact.name || artifact.artifactId },
    el(heading, { text: artifact.name || 'Artifact' }),
  );
  for (const part of artifact.parts || []) view.append(partView(part));
  return view;
}
