/** Flag in `widths`: the datum is a symbol reference. */
const SYM = 0x80;
export class SectionDataList {
    widths = new Uint8Array(256);
    /** Numeric data that fit a double exactly; larger ones live in `big`. */
    nums = new Float64Array(256);
    starts = new Uint32Array(256);
    ends = new Uint32Array(256);
    big = new Map();
    /**
     * Symbol references (`.b64 $L__tmp12`, `.b32 .debug_abbrev+4`): marked by SYM in the width, with
     * `nums` holding their index here (a -G module has hundreds of thousands).
     */
    symNames = [];
    symAddends = [];
    /** The datum index of each symbol reference. */
    symData = [];
    length = 0;
    grow() {
        const cap = this.widths.length * 2;
        const w = new Uint8Array(cap);
        w.set(this.widths);
        this.widths = w;
        const n = new Float64Array(cap);
        n.set(this.nums);
        this.nums = n;
        const s = new Uint32Array(cap);
        s.set(this.starts);
        this.starts = s;
        const e = new Uint32Array(cap);
        e.set(this.ends);
        this.ends = e;
    }
    pushNum(width, value, span) {
        if (this.length === this.widths.length)
            this.grow();
        const i = this.length++;
        this.widths[i] = width;
        this.starts[i] = span.start;
        this.ends[i] = span.end;
        if (value >= -0x1fffffffffffffn && value <= 0x1fffffffffffffn)
            this.nums[i] = Number(value);
        else
            this.big.set(i, value);
    }
    /** A literal that fits a double exactly, at source offsets start..end (the scanner's fast path). */
    pushPlain(width, value, start, end) {
        if (this.length === this.widths.length)
            this.grow();
        const i = this.length++;
        this.widths[i] = width;
        this.starts[i] = start;
        this.ends[i] = end;
        this.nums[i] = value;
    }
    /** Drop the data from index `length` on (a line the fast path could not finish). */
    truncate(length) {
        this.length = Math.min(this.length, length);
        // symbols are numbered in data order: drop those of the dropped data
        while (this.symData.length > 0 && this.symData[this.symData.length - 1] >= this.length) {
            this.symData.pop();
            this.symNames.pop();
            this.symAddends.pop();
        }
    }
    pushSym(width, name, addend, span) {
        this.pushSymAt(width, name, addend, span.start, span.end);
    }
    /** A symbol reference at source offsets start..end (the scanner's fast path). */
    pushSymAt(width, name, addend, start, end) {
        if (this.length === this.widths.length)
            this.grow();
        const i = this.length++;
        this.starts[i] = start;
        this.ends[i] = end;
        this.widths[i] = width | SYM;
        this.nums[i] = this.symNames.length;
        this.symNames.push(name);
        this.symAddends.push(addend);
        this.symData.push(i);
    }
    push(d) {
        if (d.kind === 'num')
            this.pushNum(d.width, d.value, d.span);
        else
            this.pushSym(d.width, d.name, d.addend, d.span);
    }
    width(i) {
        return (this.widths[i] & ~SYM);
    }
    at(i) {
        const width = this.width(i);
        const span = { start: this.starts[i], end: this.ends[i] };
        if (this.widths[i] & SYM) {
            const k = this.nums[i];
            return { kind: 'sym', width, name: this.symNames[k], addend: this.symAddends[k], span };
        }
        return { kind: 'num', width, value: this.big.get(i) ?? BigInt(this.nums[i]), span };
    }
    /** The value of numeric datum i (undefined for a symbol reference), without building a datum. */
    numAt(i) {
        if (this.widths[i] & SYM)
            return undefined;
        return this.big.get(i) ?? this.nums[i];
    }
    forEach(f) {
        for (let i = 0; i < this.length; i++)
            f(this.at(i), i);
    }
    map(f) {
        const out = [];
        for (let i = 0; i < this.length; i++)
            out.push(f(this.at(i), i));
        return out;
    }
    *[Symbol.iterator]() {
        for (let i = 0; i < this.length; i++)
            yield this.at(i);
    }
}
//# sourceMappingURL=section-data.js.map