/**
 * Immediate post-dominators of a control-flow graph in time O(E log V) and memory linear in
 * nodes + edges: Lengauer–Tarjan ("A Fast Algorithm for Finding Dominators in a Flowgraph",
 * 1979, the simple version with path compression) run on the reverse graph from a virtual root
 * whose children are the graph's sinks (nodes with no successor). Every loop is iterative, so a
 * function of hundreds of thousands of blocks neither overflows the stack nor needs a bitset per
 * block (the data-flow formulation this replaces needed blocks² bits).
 */

/** The node's only strict post-dominator is the virtual root above the sinks. */
export const PDOM_ROOT = -1;
/** The node reaches no sink (an endless loop): nothing post-dominates it. */
export const PDOM_NONE = -2;

/** A graph of nodes 0..n-1 in compressed rows: the successors of v are to[off[v]..off[v+1]). */
export interface Csr {
  readonly n: number;
  readonly off: Int32Array;
  readonly to: Int32Array;
}

/** The immediate post-dominator of every node: a node index, PDOM_ROOT or PDOM_NONE. */
export function immediatePostDominators(g: Csr): Int32Array {
  const { n, off, to } = g;
  const R = n; // virtual root
  const pred = transpose(g);
  // depth-first numbering of the reverse graph from R (R's children: the sinks)
  const dfnum = new Int32Array(n + 1).fill(-1);
  const vertex = new Int32Array(n + 1);
  const parent = new Int32Array(n + 1).fill(-1);
  const stack = new Int32Array(n + 1);
  const cursor = new Int32Array(n + 1);
  let count = 0;
  dfnum[R] = count;
  vertex[count++] = R;
  for (let s = 0; s < n; s++) {
    if (off[s + 1]! !== off[s]!) continue;
    dfnum[s] = count;
    vertex[count++] = s;
    parent[s] = R;
    let top = 0;
    stack[top] = s;
    cursor[top++] = pred.off[s]!;
    while (top > 0) {
      const v = stack[top - 1]!;
      const c = cursor[top - 1]!;
      if (c === pred.off[v + 1]!) { top--; continue; }
      cursor[top - 1] = c + 1;
      const w = pred.to[c]!;
      if (dfnum[w]! >= 0) continue;
      dfnum[w] = count;
      vertex[count++] = w;
      parent[w] = v;
      stack[top] = w;
      cursor[top++] = pred.off[w]!;
    }
  }
  const semi = new Int32Array(dfnum);
  const label = new Int32Array(n + 1);
  for (let v = 0; v <= n; v++) label[v] = v;
  const ancestor = new Int32Array(n + 1).fill(-1);
  const idom = new Int32Array(n + 1).fill(-1);
  const bucketHead = new Int32Array(n + 1).fill(-1);
  const bucketNext = new Int32Array(n + 1).fill(-1);
  const path = stack; // reused by eval's compression
  const evaluate = (v: number): number => {
    if (ancestor[v]! < 0) return v;
    // compress the forest path above v, nearest the forest root first
    let top = 0;
    let u = v;
    while (ancestor[ancestor[u]!]! >= 0) { path[top++] = u; u = ancestor[u]!; }
    while (top > 0) {
      const x = path[--top]!;
      const a = ancestor[x]!;
      if (semi[label[a]!]! < semi[label[x]!]!) label[x] = label[a]!;
      ancestor[x] = ancestor[a]!;
    }
    return label[v]!;
  };
  for (let i = count - 1; i >= 1; i--) {
    const w = vertex[i]!;
    // w's predecessors in the reverse graph: its successors here, and R for a sink
    if (off[w + 1]! === off[w]!) semi[w] = 0;
    for (let e = off[w]!; e < off[w + 1]!; e++) {
      const v = to[e]!;
      if (dfnum[v]! < 0) continue;
      const u = evaluate(v);
      if (semi[u]! < semi[w]!) semi[w] = semi[u]!;
    }
    const b = vertex[semi[w]!]!;
    bucketNext[w] = bucketHead[b]!;
    bucketHead[b] = w;
    const p = parent[w]!;
    ancestor[w] = p;
    for (let v = bucketHead[p]!; v >= 0; v = bucketNext[v]!) {
      const u = evaluate(v);
      idom[v] = semi[u]! < semi[v]! ? u : p;
    }
    bucketHead[p] = -1;
  }
  for (let i = 1; i < count; i++) {
    const w = vertex[i]!;
    if (idom[w] !== vertex[semi[w]!]) idom[w] = idom[idom[w]!]!;
  }
  const out = new Int32Array(n);
  for (let v = 0; v < n; v++) out[v] = dfnum[v]! < 0 ? PDOM_NONE : idom[v] === R ? PDOM_ROOT : idom[v]!;
  return out;
}

/**
 * Number of nodes on the post-dominator tree path from v up to a child of the virtual root, both
 * included (the size of v's post-dominator set, the root left out); 0 for PDOM_NONE nodes.
 */
export function postDominatorDepths(ipdom: Int32Array): Int32Array {
  const n = ipdom.length;
  const depth = new Int32Array(n).fill(-1);
  const path: number[] = [];
  for (let v = 0; v < n; v++) {
    if (depth[v]! >= 0) continue;
    if (ipdom[v] === PDOM_NONE) { depth[v] = 0; continue; }
    // walk up to a node of known depth (or a sink), then fill the walk in on the way back
    let u = v;
    while (depth[u]! < 0 && ipdom[u]! >= 0) { path.push(u); u = ipdom[u]!; }
    let d = depth[u]! >= 0 ? depth[u]! : (depth[u] = 1);
    while (path.length > 0) depth[path.pop()!] = ++d;
  }
  return depth;
}

function transpose(g: Csr): Csr {
  const { n, off, to } = g;
  const deg = new Int32Array(n + 1);
  for (let e = 0; e < to.length; e++) deg[to[e]! + 1]!++;
  for (let v = 0; v < n; v++) deg[v + 1]! += deg[v]!;
  const fill = deg.slice(0, n);
  const rto = new Int32Array(to.length);
  for (let v = 0; v < n; v++) for (let e = off[v]!; e < off[v + 1]!; e++) rto[fill[to[e]!]!++] = v;
  return { n, off: deg, to: rto };
}
