import type { Node } from '@babel/types';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';
import { isLoop } from '../statements.js';

export const breakContinueSwap: Operator = {
  name: 'break-continue-swap',
  family: 'control-flow',
  description: 'Swaps `break` and `continue` in a loop, so the loop stops early or runs on.',
  *sites(unit) {
    const parents = new Map<Node, Node | null>();
    // nodesOf visits parents before their children, so every ancestor is in the map in time.
    for (const { node, parent } of nodesOf(unit)) {
      parents.set(node, parent);
      // A label names its target explicitly; `break label` and `continue label` are left alone.
      if ((node.type !== 'BreakStatement' && node.type !== 'ContinueStatement') || node.label) continue;
      let target = parent;
      while (target && !isLoop(target) && target.type !== 'SwitchStatement') target = parents.get(target) ?? null;
      // A `break` that leaves a `switch` cannot become a `continue` of the loop around it.
      if (!target || !isLoop(target)) continue;
      const [keyword, replacement] = node.type === 'BreakStatement' ? ['break', 'continue'] : ['continue', 'break'];
      yield { start: node.start!, end: node.start! + keyword.length, replacement };
    }
  },
};
