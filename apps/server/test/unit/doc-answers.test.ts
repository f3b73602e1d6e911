import { describe, expect, it } from 'vitest';

import { answerDifferences, type Example, stepsOf } from '../support/doc-examples.js';

describe('comparing a documented answer with the output', () => {
  it('matches JSON by value, whatever its formatting, and bodies curl printed back to back', () => {
    expect(answerDifferences('{"a": 1,\n "b": [1, 2]}\n{"c": true}', '{"a":1,"b":[1,2]}{"c":true}')).toEqual([]);
  });

  it('matches ids, timestamps, dates, keys and the year of order numbers by shape; nothing else', () => {
    const shown =
      '{"sales_order_id":4,"sales_order_no":"DHK-2026-00003","at":"2026-11-21 09:14:03","by":"api_key:sok_rxcu4k6d"}';
    const run =
      '{"sales_order_id":9,"sales_order_no":"DHK-2027-00003","at":"2027-01-02 10:00:00","by":"api_key:sok_aaaa2222"}';
    expect(answerDifferences(shown, run)).toEqual([]);
    expect(answerDifferences(shown, run.replace('00003', '00004'))).toEqual([
      '$0.sales_order_no: expected "DHK-2026-00003", got "DHK-2027-00004"',
    ]);
    expect(answerDifferences('{"grand_total":880}', '{"grand_total":880.01}')).toHaveLength(1);
  });

  it('names members the page does not show, unless it shows "...": "..."', () => {
    expect(answerDifferences('{"a":1}', '{"a":1,"version":2}')).toEqual(['$0.version: not shown in the page']);
    expect(answerDifferences('{"a":1,"...":"..."}', '{"a":1,"version":2}')).toEqual([]);
    expect(answerDifferences('["x","..."]', '["x","y","z"]')).toEqual([]);
    expect(answerDifferences('["x"]', '["x","y"]')).toEqual(['$0: expected 1 items, got 2']);
  });

  it('of the headers curl -i prints, compares those the page shows', () => {
    const shown = 'HTTP/1.1 201 Created\nLocation: /api/sales-orders/4\n{"ok":true}';
    const run =
      'HTTP/1.1 201 Created\r\nX-Request-Id: 1\r\nLocation: /api/sales-orders/4\r\nDate: today\r\n\r\n{"ok":true}';
    expect(answerDifferences(shown, run)).toEqual([]);
    expect(answerDifferences(shown, run.replace('201 Created', '200 OK'))).toHaveLength(1);
  });

  it('cuts a block at its # -> answers, and gives the rest the fenced answer after it', () => {
    const example: Example = {
      page: 'x.md',
      line: 10,
      lang: 'sh',
      code: 'A=1\ncurl a\n# -> {"a":1,\n#      "b":2}\n\n# a comment\ncurl b',
      answer: 'text',
    };
    expect(stepsOf(example)).toEqual([
      { script: 'A=1\ncurl a', answer: '{"a":1,\n"b":2}', line: 11 },
      { script: '\n# a comment\ncurl b', answer: 'text', line: 15 },
    ]);
  });
});
