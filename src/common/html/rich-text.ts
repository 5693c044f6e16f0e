import type { Parser as HtmlParser } from 'htmlparser2';
import type sanitizeHtml from 'sanitize-html';
import { ProblemException } from '../errors/problem.exception';

/**
 * Rich text of work item descriptions and comments, cleaned by sanitize-html (no hand-written
 * patterns): the library's default tag allowlist plus images, headings and task-list markup; no
 * scripts, styles, event handlers or `javascript:` URLs. The plain-text form (search, `*_stripped`)
 * is derived from the cleaned HTML by the same library.
 *
 * sanitize-html (with postcss and htmlparser2) is loaded by the first rich text cleaned, not at start: an instance
 * serving reads only never needs it (peak RSS, issue 27).
 */
interface Sanitizer {
  sanitize: typeof sanitizeHtml;
  allowedTags: Set<string>;
  options: sanitizeHtml.IOptions;
  Parser: typeof HtmlParser;
}
let loaded: Sanitizer | undefined;

/* eslint-disable @typescript-eslint/no-require-imports */
function sanitizer(): Sanitizer {
  if (loaded) return loaded;
  const sanitize = require('sanitize-html') as typeof sanitizeHtml;
  const { Parser } = require('htmlparser2') as typeof import('htmlparser2');
  const allowedTags = new Set<string>([
    ...sanitize.defaults.allowedTags,
    'img',
    'h1',
    'h2',
    's',
    'del',
    'ins',
    'mark',
    'label',
    'input',
  ]);
  const options: sanitizeHtml.IOptions = {
    allowedTags: [...allowedTags],
    allowedAttributes: {
      ...sanitize.defaults.allowedAttributes,
      a: ['href', 'name', 'target', 'rel'],
      img: ['src', 'alt', 'title', 'width', 'height'],
      input: ['type', 'checked', 'disabled'],
      '*': ['class', 'data-type', 'data-checked', 'data-id', 'data-label'],
      ol: ['start'],
      td: ['colspan', 'rowspan'],
      th: ['colspan', 'rowspan'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['http', 'https', 'data'] },
    allowProtocolRelative: false,
    disallowedTagsMode: 'discard',
  };
  loaded = { sanitize, allowedTags, options, Parser };
  return loaded;
}
/* eslint-enable @typescript-eslint/no-require-imports */

/** sanitize-html with its default options (loaded on first use, as above): RICH_TEXT property values. */
export function sanitizeWithDefaults(input: string): string {
  return sanitizer().sanitize(input);
}

/** Dropped like any disallowed tag, but a whole-document wrapper around nothing is still an empty document. */
const DOCUMENT_WRAPPERS = new Set(['html', 'body']);

/**
 * Elements whose boundaries separate words: text of adjacent blocks must not run together ("<p>a</p><p>b</p>"
 * -> "a b"), while inline markup and entities must not split a word ("un<em>believ</em>able" -> "unbelievable").
 */
const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'caption',
  'dd',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'img',
  'input',
  'label',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);

/** The plain text of cleaned HTML (the parser sanitize-html uses; entities decoded), whitespace collapsed. */
function plain(html: string): string {
  let out = '';
  const boundary = (name: string) => {
    if (BLOCK_TAGS.has(name)) out += ' ';
  };
  const parser = new (sanitizer().Parser)(
    { onopentagname: boundary, onclosetag: boundary, ontext: (text) => (out += text) },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return out.split(/\s+/).filter(Boolean).join(' ');
}

export interface CleanRichText {
  html: string;
  stripped: string;
}

/**
 * Cleans `input` for storage. Content that had something in it but sanitizes to nothing usable is
 * 400 on `field`: storing an empty description in its place would silently lose what the client
 * meant to send. "Something" is text (`<script>x</script>`) or any element the allowlist drops
 * (`<iframe src=…></iframe>`, `<object>`, `<svg>`): markup made only of dropped elements is treated
 * like a lone `<script>`, whether or not it carried text. Only markup made entirely of allowed, empty
 * elements (`<p></p>`, `<br>`) is an empty document.
 */
export function cleanRichText(field: string, input: string, opts: { required?: boolean } = {}): CleanRichText {
  const dropped = new Set<string>();
  const { sanitize, allowedTags, options } = sanitizer();
  const html = sanitize(input, {
    ...options,
    onOpenTag: (name) => {
      if (!allowedTags.has(name) && !DOCUMENT_WRAPPERS.has(name)) dropped.add(name);
    },
  }).trim();
  const stripped = plain(html);
  const hasMedia = html.includes('<img src=');
  if (input.trim() !== '' && !stripped && !hasMedia && (dropped.size > 0 || !isEmptyMarkup(input))) {
    const what = dropped.size
      ? ` (removed: ${[...dropped]
          .sort()
          .map((t) => `<${t}>`)
          .join(', ')})`
      : '';
    throw ProblemException.validation(
      field,
      `The HTML could not be sanitized into usable content${what}; scripts, styles, embeds and other unsafe markup are removed.`,
    );
  }
  if (opts.required && !stripped && !hasMedia) {
    throw ProblemException.validation(field, `${field} must contain text.`);
  }
  return { html, stripped };
}

/** Markup with no text at all in the original either (`<p></p>`, `<br>`): an empty document, not an attack. */
function isEmptyMarkup(input: string): boolean {
  // Every tag dropped but the text of script/style kept: `<script>x</script>` has content, `<p></p>` has none.
  return sanitizer().sanitize(input, { allowedTags: [], allowedAttributes: {}, nonTextTags: [] }).trim() === '';
}
