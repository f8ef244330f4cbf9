import { describe, expect, test } from 'bun:test';
import { WaitForGraph } from './wait-for-graph.ts';

describe('WaitForGraph', () => {
  test('a request to oneself is a cycle', () => {
    expect(new WaitForGraph().cycleThrough('a', 'a')).toEqual(['a', 'a']);
  });

  test('A waits on B, then B asking A closes the cycle', () => {
    const graph = new WaitForGraph();
    expect(graph.cycleThrough('a', 'b')).toBeNull();
    graph.add('a', 'b');
    expect(graph.cycleThrough('b', 'a')).toEqual(['b', 'a', 'b']);
  });

  test('finds longer cycles and names every instance on them', () => {
    const graph = new WaitForGraph();
    graph.add('a', 'b');
    graph.add('b', 'c');
    expect(graph.cycleThrough('c', 'a')).toEqual(['c', 'a', 'b', 'c']);
    expect(graph.cycleThrough('c', 'd')).toBeNull();
  });

  test('edges are counted: one of two equal requests ending keeps the wait', () => {
    const graph = new WaitForGraph();
    graph.add('a', 'b');
    graph.add('a', 'b');
    graph.remove('a', 'b');
    expect(graph.cycleThrough('b', 'a')).not.toBeNull();
    graph.remove('a', 'b');
    expect(graph.cycleThrough('b', 'a')).toBeNull();
    expect(graph.size).toBe(0);
  });

  test('fan-out without a way back is not a cycle', () => {
    const graph = new WaitForGraph();
    graph.add('a', 'b');
    graph.add('a', 'c');
    graph.add('c', 'd');
    expect(graph.cycleThrough('b', 'd')).toBeNull();
    expect(graph.cycleThrough('d', 'a')).toEqual(['d', 'a', 'c', 'd']);
  });
});
