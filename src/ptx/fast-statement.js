import { AddrOperand, InstructionNode, RegOperand, SymOperand } from './nodes.js';
import { hexDigit } from './scanner.js';
import { VECTOR_ALU } from './opcodes.js';
function isIdentStart(c) {
    return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c === 37;
}
function isIdentPart(c) {
    return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 36;
}
export class FastStatements {
    source;
    word;
    opcode;
    isType;
    /** End of the last word, integer or statement read (the parse position of the fast path). */
    j = 0;
    value = 0n;
    constructor(source, word, opcode, isType) {
        this.source = source;
        this.word = word;
        this.opcode = opcode;
        this.isType = isType;
    }
    /** The statement starting at `i` (after whitespace), or undefined when it is not a plain one. */
    statement(i) {
        const s = this.source;
        i = this.skipSpace(i);
        const c = s.charCodeAt(i);
        if (c === 46)
            return s.startsWith('.loc', i) && (s.charCodeAt(i + 4) === 32 || s.charCodeAt(i + 4) === 9) ? this.loc(i) : this.decl(i);
        let guard;
        const start = i;
        if (c === 64) {
            // @%p or @!%p
            let g = i + 1;
            const negate = s.charCodeAt(g) === 33;
            if (negate)
                g++;
            if (s.charCodeAt(g) !== 37)
                return undefined;
            const end = this.wordEnd(g);
            guard = { reg: this.word(g, end), negate, span: { start: i + 1, end } };
            i = this.skipSpace(end);
        }
        if (!isIdentStart(s.charCodeAt(i)) || s.charCodeAt(i) === 37)
            return undefined;
        const opStart = i;
        const opEnd = this.wordEnd(i);
        i = this.skipSpace(opEnd);
        const next = s.charCodeAt(i);
        if (guard === undefined && next === 58) {
            // a label, unless it names a .callprototype
            const after = this.skipSpace(i + 1);
            if (s.startsWith('.callprototype', after) || !this.plainNext(after))
                return undefined;
            return { statement: { kind: 'label', name: this.word(opStart, opEnd), span: { start: opStart, end: opEnd } }, end: i + 1 };
        }
        if (next === 46)
            return undefined; // modifiers written apart
        const known = this.opcode(this.word(opStart, opEnd));
        if (known === undefined)
            return undefined;
        if ((known.opcode === 'div' || known.opcode === 'rem') && known.mods.includes('wide'))
            return undefined;
        // a vector modifier on arithmetic: the token parser reports it
        if (VECTOR_ALU.has(known.opcode) && known.mods.some((m) => m === 'v2' || m === 'v3' || m === 'v4'))
            return undefined;
        const operands = [];
        if (next !== 59) {
            for (;;) {
                const o = this.operand(i);
                if (o === undefined)
                    return undefined;
                operands.push(o);
                i = this.skipSpace(this.j);
                const d = s.charCodeAt(i);
                if (d === 44) {
                    i = this.skipSpace(i + 1);
                    continue;
                }
                if (d !== 59)
                    return undefined;
                break;
            }
        }
        const end = i + 1;
        return { statement: new InstructionNode(known.opcode, known.mods, guard, operands, start, end, opStart, opEnd), end };
    }
    /** `.loc file line column` with no attributes after it. */
    loc(i) {
        const s = this.source;
        const nums = [];
        let k = i + 4;
        for (let n = 0; n < 3; n++) {
            k = this.skipSpace(k);
            if (!this.decimal(k))
                return undefined;
            nums.push(Number(this.value));
            k = this.j;
        }
        const end = k;
        // `, function_name ...` / `, inlined_at ...` (even on the next line): the token parser's
        if (!this.plainNext(this.skipSpace(k)))
            return undefined;
        const loc = {
            kind: 'loc', file: nums[0], line: nums[1], column: nums[2], inlinedAt: undefined, functionName: undefined,
            span: { start: i, end },
        };
        return { statement: loc, end };
    }
    /**
     * `.reg|.param|.local [.align N] .type name[<N>][[N]]...;`: one name, no initializer, attributes
     * written apart (as nvcc writes a body's declarations).
     */
    decl(i) {
        const s = this.source;
        let end = this.wordEnd(i);
        const spaceWord = s.slice(i + 1, end);
        if (spaceWord !== 'reg' && spaceWord !== 'param' && spaceWord !== 'local')
            return undefined;
        let k = this.skipSpace(end);
        let align;
        let type;
        let vector = 1;
        while (s.charCodeAt(k) === 46) {
            end = this.wordEnd(k);
            const w = s.slice(k + 1, end);
            k = this.skipSpace(end);
            if (w === 'align') {
                if (!this.decimal(k))
                    return undefined;
                align = Number(this.value);
                k = this.skipSpace(this.j);
            }
            else if (w.length === 2 && w.charCodeAt(0) === 118 && w.charCodeAt(1) >= 48 && w.charCodeAt(1) <= 57) {
                vector = w.charCodeAt(1) - 48;
            }
            else if (this.isType(w))
                type = w;
            else
                return undefined;
        }
        if (type === undefined || !isIdentStart(s.charCodeAt(k)))
            return undefined;
        const nameEnd = this.wordEnd(k);
        const name = this.word(k, nameEnd);
        let last = nameEnd; // the span ends at the last token before `;`
        k = this.skipSpace(nameEnd);
        let rangeCount;
        if (s.charCodeAt(k) === 60) {
            if (!this.decimal(this.skipSpace(k + 1)))
                return undefined;
            rangeCount = Number(this.value);
            k = this.skipSpace(this.j);
            if (s.charCodeAt(k) !== 62)
                return undefined;
            last = k + 1;
            k = this.skipSpace(k + 1);
        }
        const dims = [];
        while (s.charCodeAt(k) === 91) {
            if (!this.decimal(this.skipSpace(k + 1)))
                return undefined;
            dims.push(Number(this.value));
            k = this.skipSpace(this.j);
            if (s.charCodeAt(k) !== 93)
                return undefined;
            last = k + 1;
            k = this.skipSpace(k + 1);
        }
        if (s.charCodeAt(k) !== 59)
            return undefined;
        const decl = {
            kind: 'var', space: spaceWord, name, type, vector, dims, align, linkage: undefined, rangeCount, init: undefined,
            ptrSpace: undefined, span: { start: i, end: last },
        };
        return { statement: decl, end: k + 1 };
    }
    /** One operand at `i`: reg, plain symbol, decimal or hex integer, `[reg|sym (+|-) int]`. */
    operand(i) {
        const s = this.source;
        const c = s.charCodeAt(i);
        if (isIdentStart(c)) {
            const end = this.wordEnd(i);
            const after = this.skipSpace(end);
            const d = s.charCodeAt(after);
            if (d !== 44 && d !== 59)
                return undefined; // sym+imm, sym[imm], %p|%q: the token parser's
            this.j = end;
            if (c === 37)
                return new RegOperand(this.word(i, end), i, end);
            if (end === i + 1 && c === 95)
                return undefined; // `_` sink
            return new SymOperand(this.word(i, end), 0n, i, end);
        }
        if (c === 91) {
            let k = this.skipSpace(i + 1);
            const b = s.charCodeAt(k);
            if (!isIdentStart(b))
                return undefined;
            const end = this.wordEnd(k);
            const base = b === 37 ? new RegOperand(this.word(k, end), k, end) : new SymOperand(this.word(k, end), 0n, k, end);
            k = this.skipSpace(end);
            let offset = 0n;
            const op = s.charCodeAt(k);
            if (op === 43 || op === 45) {
                k = this.skipSpace(k + 1);
                if (!this.integer(k))
                    return undefined;
                offset = op === 45 ? -this.value : this.value;
                k = this.skipSpace(this.j);
            }
            if (s.charCodeAt(k) !== 93)
                return undefined;
            this.j = k + 1;
            return new AddrOperand(base, offset, i, k + 1);
        }
        if (c === 45 || (c >= 48 && c <= 57)) {
            const neg = c === 45;
            const k = neg ? i + 1 : i;
            if (!this.integer(k))
                return undefined;
            return { kind: 'int', value: neg ? -this.value : this.value, span: { start: i, end: this.j } };
        }
        return undefined;
    }
    /** A decimal (not octal) or `0x` literal at `k` that the scanner would take whole: sets value and j. */
    integer(k) {
        const s = this.source;
        if (s.charCodeAt(k) === 48 && (s.charCodeAt(k + 1) | 0x20) === 120) {
            let e = k + 2;
            let v = 0;
            for (;;) {
                const c = s.charCodeAt(e);
                const h = hexDigit(c);
                if (h < 0)
                    break;
                v = v * 16 + h;
                e++;
            }
            if (e === k + 2 || e - k - 2 > 13 || isIdentPart(s.charCodeAt(e)) || s.charCodeAt(e) === 46)
                return false;
            this.value = BigInt(v);
            this.j = e;
            return true;
        }
        return this.decimal(k);
    }
    decimal(k) {
        const s = this.source;
        let e = k;
        let v = 0;
        while (s.charCodeAt(e) >= 48 && s.charCodeAt(e) <= 57) {
            v = v * 10 + s.charCodeAt(e) - 48;
            e++;
        }
        // no digits, C octal, past 2^53, a suffix, a float or an exponent: the token parser's
        if (e === k || e - k > 15 || (e - k > 1 && s.charCodeAt(k) === 48))
            return false;
        const c = s.charCodeAt(e);
        if (isIdentPart(c) || c === 46)
            return false;
        this.value = BigInt(v);
        this.j = e;
        return true;
    }
    /** End of the word at `i`: identifier characters, then glued `.mod` and `::` parts (as the scanner). */
    wordEnd(i) {
        const s = this.source;
        const n = s.length;
        i++;
        while (i < n && isIdentPart(s.charCodeAt(i)))
            i++;
        for (;;) {
            const c = s.charCodeAt(i);
            if (c === 46 && i + 1 < n && isIdentPart(s.charCodeAt(i + 1)))
                i++;
            else if (c === 58 && s.charCodeAt(i + 1) === 58 && isIdentPart(s.charCodeAt(i + 2) || 0))
                i += 2;
            else
                return i;
            while (i < n && isIdentPart(s.charCodeAt(i)))
                i++;
        }
    }
    /**
     * Whether the token at `k` is one the scanner reads as it stands and is no `,` (which would
     * continue a `.loc`): the scanner skips characters no token starts with, so what follows them
     * could be anything.
     */
    plainNext(k) {
        const s = this.source;
        if (k >= s.length)
            return true;
        const c = s.charCodeAt(k);
        if (isIdentStart(c) || (c >= 48 && c <= 57) || c === 34)
            return true;
        if (c === 46)
            return isIdentPart(s.charCodeAt(k + 1));
        return '{}()[];:<>+-=@!|*~&^%?'.includes(s[k]);
    }
    /** Past blanks, line breaks and `//` comments (what the scanner skips between tokens). */
    skipSpace(i) {
        const s = this.source;
        for (;;) {
            const c = s.charCodeAt(i);
            if (c === 32 || c === 9 || c === 10 || c === 13)
                i++;
            else if (c === 47 && s.charCodeAt(i + 1) === 47) {
                const nl = s.indexOf('\n', i + 2);
                i = nl < 0 ? s.length : nl;
            }
            else
                return i;
        }
    }
}
//# sourceMappingURL=fast-statement.js.map