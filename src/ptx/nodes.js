export class InstructionNode {
    kind;
    opcode;
    mods;
    guard;
    operands;
    start;
    end;
    opStart;
    opEnd;
    constructor(opcode, mods, guard, operands, start, end, opStart, opEnd) {
        this.kind = 'instr';
        this.opcode = opcode;
        this.mods = mods;
        this.guard = guard;
        this.operands = operands;
        this.start = start;
        this.end = end;
        this.opStart = opStart;
        this.opEnd = opEnd;
    }
    get span() {
        return this;
    }
    get opSpan() {
        return { start: this.opStart, end: this.opEnd };
    }
}
export class RegOperand {
    kind;
    name;
    start;
    end;
    constructor(name, start, end) {
        this.kind = 'reg';
        this.name = name;
        this.start = start;
        this.end = end;
    }
    get span() {
        return this;
    }
}
export class SymOperand {
    kind;
    name;
    addend;
    start;
    end;
    constructor(name, addend, start, end) {
        this.kind = 'sym';
        this.name = name;
        this.addend = addend;
        this.start = start;
        this.end = end;
    }
    get span() {
        return this;
    }
}
export class AddrOperand {
    kind;
    base;
    offset;
    start;
    end;
    constructor(base, offset, start, end) {
        this.kind = 'addr';
        this.base = base;
        this.offset = offset;
        this.start = start;
        this.end = end;
    }
    get span() {
        return this;
    }
}
//# sourceMappingURL=nodes.js.map