import { type DefaultTreeAdapterMap, parseFragment } from 'parse5';

type Node = DefaultTreeAdapterMap['childNode'];
type Element = DefaultTreeAdapterMap['element'];

export interface ParsedOption {
  value: string | undefined;
  text: string;
  selected: boolean;
}

const isElement = (node: Node): node is Element => 'tagName' in node;

const textOf = (node: Node): string => {
  if (node.nodeName === '#text' && 'value' in node) return node.value;
  return isElement(node) ? node.childNodes.map(textOf).join('') : '';
};

/**
 * Parses option HTML as a browser does when it is set as the inner HTML of a <select>, and
 * lists the options. Anything else that comes out of the parser (an element other than
 * <option>, an element inside an option, text outside the options beyond the newlines
 * between them) is an injection or a format error, so it throws.
 */
export const parseOptions = (html: string): ParsedOption[] => {
  const select = parseFragment('<select></select>').childNodes[0];
  if (!select || !isElement(select)) throw new Error('parse5 did not build the <select> context');
  const nodes = parseFragment(select, html, {}).childNodes;
  return nodes.flatMap((node): ParsedOption[] => {
    if (!isElement(node)) {
      if (textOf(node) === '\n') return [];
      throw new Error(`unexpected ${node.nodeName} outside the options: ${JSON.stringify(textOf(node))}`);
    }
    if (node.tagName !== 'option') throw new Error(`unexpected <${node.tagName}> element`);
    const inner = node.childNodes.find(isElement);
    if (inner) throw new Error(`unexpected <${inner.tagName}> inside an option`);
    const attribute = (name: string) => node.attrs.find((attr) => attr.name === name);
    const unexpected = node.attrs.find((attr) => attr.name !== 'value' && attr.name !== 'selected');
    if (unexpected) throw new Error(`unexpected attribute ${unexpected.name} on an option`);
    return [{ value: attribute('value')?.value, text: textOf(node), selected: attribute('selected') !== undefined }];
  });
};
