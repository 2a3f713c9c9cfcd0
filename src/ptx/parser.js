import { isKnownModifier, OPCODES, TYPE_NAMES, VECTOR_ALU } from './opcodes.js';
import { Scanner, scanSectionData } from './scanner.js';
import { FastStatements } from './fast-statement.js';
import { AddrOperand, InstructionNode, RegOperand, SymOperand } from './nodes.js';
import { SectionDataList } from './section-data.js';
const MAX_DIAGNOSTICS = 100;
const SPACES = new Set([
    'reg', 'sreg', 'const', 'global', 'local', 'param', 'shared', 'tex', 'surf', 'sampler',
    'texref', 'surfref', 'samplerref',
]);
const LINKAGES = new Set(['extern', 'visible', 'weak', 'common']);
const PERF_DIRECTIVES = new Set([
    'maxntid', 'reqntid', 'minnctapersm', 'maxnctapersm', 'maxnreg', 'maxclusterrank',
    'reqnctapercluster', 'explicitcluster', 'blocksareclusters', 'abi_preserve', 'abi_preserve_control',
]);
class ParseError extends Error {
}
export function parsePtx(source, fileName = '<input>', opts = {}) {
    return new Parser(source, fileName, opts.deferBodies === true).parseModule();
}
class Parser {
    source;
    fileName;
    defer;
    /** A window of tokens from `base` (earlier ones are dropped: the parser never goes back). */
    toks = [];
    base = 0;
    scanner;
    fast;
    /** End of the last statement the fast path took (it consumed no token to measure spans by). */
    fastEnd = 0;
    eof;
    pos = 0;
    diags = [];
    /** The module's .version is 1.x (set when .version is read). */
    isa1x = false;
    /** Bodies may be deferred: asked for, and the module's version is 2.0 or later (ISA 1.x bodies carry module state). */
    deferring = false;
    structs = new Set();
    /** ISA 1.1 index-less `.file`/`.loc`: highest index seen, the latest .file, .file found in bodies. */
    implicitFile = 0;
    lastFile = 1;
    bodyFiles = [];
    operandScratch = [];
    opcodeCache = new Map();
    constructor(source, fileName, defer = false) {
        this.source = source;
        this.fileName = fileName;
        this.defer = defer;
        this.scanner = new Scanner(source, (message, span) => this.error(message, span));
        this.fast = new FastStatements(source, (start, end) => this.scanner.word(start, end), (text) => this.lookupOpcode(text), (w) => TYPE_NAMES.has(w));
    }
    /**
     * An opcode spelling split into opcode and modifiers, or undefined when a part is unknown. A
     * module repeats a few hundred spellings: each is split and checked once, and instructions
     * share its (read-only) modifier list.
     */
    lookupOpcode(text) {
        let known = this.opcodeCache.get(text);
        if (known !== undefined)
            return known;
        const parts = text.split('.');
        const opcode = parts[0];
        const mods = parts.slice(1);
        if (!OPCODES.has(opcode) || !mods.every(isKnownModifier))
            return undefined;
        known = { opcode, mods };
        this.opcodeCache.set(text, known);
        return known;
    }
    /**
     * Plain statements straight from the text (fast-statement.ts), while no token beyond the
     * position is scanned yet; stops at the first statement that needs the token parser.
     */
    fastStatements(body) {
        // ISA 1.x modules are small and have rules of their own (div.u64 unimplemented): tokens only
        if (this.eof || this.isa1x)
            return;
        for (;;) {
            let from = this.scanner.offset;
            const ahead = this.base + this.toks.length - this.pos;
            let peeked;
            if (ahead === 1) {
                peeked = this.toks[this.toks.length - 1];
                from = peeked.start;
            }
            else if (ahead !== 0)
                return;
            const r = this.fast.statement(from);
            if (r === undefined)
                return;
            if (peeked !== undefined)
                this.toks.pop();
            body.push(r.statement);
            this.scanner.seek(r.end);
            this.fastEnd = r.end;
        }
    }
    // ---- token helpers -------------------------------------------------------------------------
    /** Token i of the stream, scanning on demand; tokens far behind the position are dropped. */
    at(i) {
        if (this.pos - this.base > 4096) {
            const drop = this.pos - this.base - 16;
            this.toks = this.toks.slice(drop);
            this.base += drop;
        }
        const idx = i - this.base;
        while (idx >= this.toks.length) {
            if (this.eof)
                return this.eof;
            const t = this.scanner.next();
            this.toks.push(t);
            if (t.kind === 6 /* Tok.Eof */)
                this.eof = t;
        }
        return this.toks[Math.max(0, idx)];
    }
    get tok() {
        return this.at(this.pos);
    }
    peek(k = 1) {
        return this.at(this.pos + k);
    }
    next() {
        const t = this.tok;
        if (t.kind !== 6 /* Tok.Eof */)
            this.pos++;
        return t;
    }
    isPunct(ch, t = this.tok) {
        return t.kind === 5 /* Tok.Punct */ && t.text === ch;
    }
    eatPunct(ch) {
        if (this.isPunct(ch)) {
            this.pos++;
            return true;
        }
        return false;
    }
    expectPunct(ch, what) {
        if (this.isPunct(ch))
            return this.next();
        this.fail(`expected '${ch}'${what ? ' ' + what : ''} but found ${describe(this.tok)}`);
    }
    isDir(name, t = this.tok) {
        return t.kind === 1 /* Tok.Dir */ && t.text === '.' + name;
    }
    error(message, span) {
        if (this.diags.length >= MAX_DIAGNOSTICS)
            return;
        // one diagnostic per position
        const last = this.diags[this.diags.length - 1];
        if (last && last.span.start === span.start)
            return;
        this.diags.push({ severity: 'error', message, span });
    }
    fail(message, span = this.tok) {
        this.error(message, { start: span.start, end: span.end });
        throw new ParseError(message);
    }
    spanFrom(start) {
        return { start, end: this.endFrom(start) };
    }
    /** Where the node that began at `start` ends: after the last token taken. */
    endFrom(start) {
        return Math.max(start, this.at(Math.max(0, this.pos - 1)).end, this.fastEnd);
    }
    /** Skip to just after the next `;` at this nesting level, or stop before a closing `}`. */
    recover() {
        let depth = 0;
        while (this.tok.kind !== 6 /* Tok.Eof */) {
            if (this.isPunct('{'))
                depth++;
            else if (this.isPunct('}')) {
                if (depth === 0)
                    return;
                depth--; // a balanced `{...}` (vector operand or block) is skipped whole
            }
            else if (this.isPunct(';') && depth === 0) {
                this.pos++;
                return;
            }
            this.pos++;
        }
    }
    // ---- module ----------------------------------------------------------------------------------
    parseModule() {
        let version;
        const target = [];
        let addressSize = 64;
        let sawAddressSize = false;
        const items = [];
        while (this.tok.kind !== 6 /* Tok.Eof */) {
            const before = this.pos;
            try {
                const t = this.tok;
                if (this.isDir('version')) {
                    this.next();
                    const v = this.next();
                    if (v.kind !== 3 /* Tok.Float */ && v.kind !== 2 /* Tok.Int */)
                        this.fail('expected a version number after .version', v);
                    version = v.text;
                    this.isa1x = versionBefore(version, 2, 0);
                    this.deferring = this.defer && !versionBefore(version, 2, 0);
                }
                else if (this.isDir('target')) {
                    this.next();
                    do {
                        const w = this.next();
                        if (w.kind !== 0 /* Tok.Word */)
                            this.fail('expected a target name', w);
                        target.push(w.text);
                    } while (this.eatPunct(','));
                }
                else if (this.isDir('address_size')) {
                    this.next();
                    const v = this.next();
                    if (v.kind !== 2 /* Tok.Int */ || (v.int !== 32n && v.int !== 64n))
                        this.fail('.address_size must be 32 or 64', v);
                    addressSize = v.int === 32n ? 32 : 64;
                    sawAddressSize = true;
                }
                else if (this.isDir('file')) {
                    items.push(this.parseFile());
                }
                else if (this.isDir('section')) {
                    items.push(this.parseSection());
                }
                else if (this.isDir('struct') || this.isDir('union')) {
                    items.push(this.parseStruct());
                }
                else if (this.isDir('pragma')) {
                    items.push(this.parsePragma());
                }
                else if (this.isDir('loc')) {
                    this.parseLoc(); // stray top-level .loc: accepted, carries no instruction
                }
                else if (t.kind === 1 /* Tok.Dir */) {
                    items.push(...this.parseTopDecl());
                }
                else if (this.isPunct(';')) {
                    this.next();
                }
                else {
                    this.fail(`expected a directive at module level but found ${describe(t)}`);
                }
            }
            catch (e) {
                if (!(e instanceof ParseError))
                    throw e;
                this.recover();
            }
            if (this.pos === before)
                this.pos++; // guarantee progress
        }
        items.push(...this.bodyFiles);
        // before PTX 2.3 there is no .address_size and addressing is 32-bit (ISA 1.1 pointers are .u32)
        if (!sawAddressSize && version !== undefined && versionBefore(version, 2, 3))
            addressSize = 32;
        const module = { fileName: this.fileName, source: this.source, version, target, addressSize, items };
        return { module, diagnostics: this.diags };
    }
    parseFile() {
        const start = this.next().start;
        // ISA 1.1 writes `.file name` with no index: it gets the next free one, and an index-less
        // `.loc line` refers to the most recent .file
        const idx = this.tok.kind === 4 /* Tok.Str */ ? undefined : this.next();
        if (idx !== undefined && idx.kind !== 2 /* Tok.Int */)
            this.fail('expected a file index after .file', idx);
        const index = idx === undefined ? this.implicitFile + 1 : Number(idx.int);
        this.implicitFile = Math.max(this.implicitFile, index);
        this.lastFile = index;
        const path = this.next();
        if (path.kind !== 4 /* Tok.Str */)
            this.fail('expected a quoted file name', path);
        // optional timestamp and size
        while (this.eatPunct(','))
            this.parseConstExpr();
        return { kind: 'file', index, path: unquote(path.text), span: this.spanFrom(start) };
    }
    parsePragma() {
        const start = this.next().start;
        const parts = [];
        do {
            const s = this.next();
            if (s.kind !== 4 /* Tok.Str */)
                this.fail('expected a string after .pragma', s);
            parts.push(unquote(s.text));
        } while (this.eatPunct(','));
        this.expectPunct(';');
        return { kind: 'pragma', text: parts.join(', '), span: this.spanFrom(start) };
    }
    parseLoc() {
        const start = this.next().start;
        const first = this.expectInt('line number');
        // ISA 1.1 `.loc line`: a single number is the line in the most recent .file
        const indexless = this.tok.kind !== 2 /* Tok.Int */;
        const f = indexless ? this.lastFile : first;
        const line = indexless ? first : this.expectInt('line number');
        const col = this.tok.kind === 2 /* Tok.Int */ ? this.expectInt('column') : 0;
        let inlinedAt;
        let functionName;
        while (this.eatPunct(',')) {
            const w = this.next();
            if (w.kind === 0 /* Tok.Word */ && w.text === 'function_name') {
                const n = this.next();
                if (n.kind !== 0 /* Tok.Word */)
                    this.fail('expected a label after function_name', n);
                functionName = n.text;
                if (this.eatPunct('+'))
                    this.parseConstExpr();
            }
            else if (w.kind === 0 /* Tok.Word */ && w.text === 'inlined_at') {
                inlinedAt = { file: this.expectInt('file index'), line: this.expectInt('line'), column: this.expectInt('column') };
            }
            else
                this.fail(`unknown .loc attribute ${describe(w)}`, w);
        }
        return { kind: 'loc', file: f, line, column: col, inlinedAt, functionName, span: this.spanFrom(start) };
    }
    expectInt(what) {
        const t = this.next();
        if (t.kind !== 2 /* Tok.Int */)
            this.fail(`expected ${what} but found ${describe(t)}`, t);
        return Number(t.int);
    }
    parseSection() {
        const start = this.next().start;
        const nameTok = this.next();
        if (nameTok.kind !== 1 /* Tok.Dir */ && nameTok.kind !== 0 /* Tok.Word */)
            this.fail('expected a section name', nameTok);
        // ISA 1.1 form: .section .debug_info, "", @progbits
        if (this.eatPunct(',')) {
            while (!this.isPunct('{') && this.tok.kind !== 6 /* Tok.Eof */ && !this.isDir('b8') && !this.isDir('byte')) {
                if (this.tok.kind === 1 /* Tok.Dir */ && this.tok.text !== nameTok.text && this.peek().kind !== 5 /* Tok.Punct */)
                    break;
                this.next();
            }
        }
        const data = new SectionDataList();
        const labels = [];
        const braced = this.eatPunct('{');
        for (;;) {
            this.fastSectionData(data);
            const t = this.tok;
            if (braced && this.isPunct('}')) {
                this.next();
                break;
            }
            if (t.kind === 6 /* Tok.Eof */) {
                if (braced)
                    this.error('unterminated .section: missing }', t);
                break;
            }
            if (t.kind === 0 /* Tok.Word */ && this.isPunct(':', this.peek())) {
                this.next();
                this.next();
                labels.push({ name: t.text, datum: data.length, span: spanOf(t) });
                continue;
            }
            if (t.kind === 1 /* Tok.Dir */) {
                const width = dataWidth(t.text);
                if (width === 0) {
                    if (!braced)
                        break; // next top-level directive ends an unbraced section
                    this.fail(`unexpected ${t.text} in .section (expected .b8/.b16/.b32/.b64)`, t);
                }
                this.next();
                do
                    this.parseSectionDatum(width, data);
                while (this.eatPunct(','));
                this.eatPunct(';');
                continue;
            }
            if (this.isPunct(';')) {
                this.next();
                continue;
            }
            this.fail(`unexpected ${describe(t)} in .section`, t);
        }
        return { kind: 'section', name: nameTok.text, data, labels, span: this.spanFrom(start) };
    }
    /** Plain `.bN` literal lines straight from the text, when no token beyond the position is scanned yet. */
    fastSectionData(data) {
        if (this.eof)
            return;
        let from = this.scanner.offset;
        const ahead = this.base + this.toks.length - this.pos;
        if (ahead === 1) {
            // the current token was looked at (after a `,` test) but not taken: scan it again from text
            const t = this.toks[this.toks.length - 1];
            if (t.kind !== 1 /* Tok.Dir */)
                return;
            from = t.start;
            this.toks.pop();
        }
        else if (ahead !== 0)
            return;
        this.scanner.seek(scanSectionData(this.source, from, data));
    }
    parseSectionDatum(width, data) {
        const t = this.tok;
        // the common datum is one literal (`.b8 0x12, 0x34`): no expression parse
        if (t.kind === 2 /* Tok.Int */) {
            const after = this.peek();
            if (after.kind === 5 /* Tok.Punct */ && (after.text === ',' || after.text === ';' || after.text === '}')) {
                this.next();
                data.pushNum(width, t.int, t);
                return;
            }
        }
        if (t.kind === 0 /* Tok.Word */ || t.kind === 1 /* Tok.Dir */) {
            this.next();
            let addend = 0n;
            if (this.isPunct('+') || this.isPunct('-')) {
                const neg = this.next().text === '-';
                addend = this.parseConstExpr();
                if (neg)
                    addend = -addend;
            }
            data.pushSym(width, t.text, addend, this.spanFrom(t.start));
            return;
        }
        const value = this.parseConstExpr();
        data.pushNum(width, value, this.spanFrom(t.start));
    }
    parseStruct() {
        const start = this.tok.start;
        const isUnion = this.next().text === '.union';
        const name = this.next();
        if (name.kind !== 0 /* Tok.Word */)
            this.fail('expected a struct name', name);
        this.expectPunct('{');
        const fields = [];
        while (!this.isPunct('}') && this.tok.kind !== 6 /* Tok.Eof */) {
            fields.push(...this.parseVarDeclRest('reg', undefined, this.tok.start, true));
        }
        this.expectPunct('}');
        this.eatPunct(';');
        this.structs.add(name.text);
        return { kind: 'struct', isUnion, name: name.text, fields, span: this.spanFrom(start) };
    }
    /** A module-level declaration: linkage? then .entry/.func or a variable. */
    parseTopDecl() {
        const start = this.tok.start;
        let linkage;
        while (this.tok.kind === 1 /* Tok.Dir */ && LINKAGES.has(this.tok.text.slice(1))) {
            linkage = this.next().text.slice(1);
        }
        if (this.isDir('entry') || this.isDir('func'))
            return [this.parseFunction(linkage, start)];
        const t = this.tok;
        if (t.kind === 1 /* Tok.Dir */ && SPACES.has(spaceWord(t.text))) {
            this.next();
            this.constBank(t);
            return this.parseVarDeclRest(normSpace(spaceWord(t.text)), linkage, start, false, t.text);
        }
        this.fail(`unknown directive ${describe(t)}`, t);
    }
    // ---- declarations -----------------------------------------------------------------------------
    /**
     * ISA 1.1 `.const[bank]`: "The constant space is restricted to a single bank. This may be
     * written as .const or .const[0]" — bank 0 is the ordinary constant space, others are refused.
     */
    constBank(space) {
        if (space.text !== '.const' || !this.isPunct('['))
            return;
        const open = this.next();
        const bank = this.parseConstExpr();
        this.expectPunct(']');
        if (bank !== 0n)
            this.fail(`constant bank ${bank} is not supported: only .const[0] exists (PTX ISA 1.1 restricts .const to a single bank)`, { start: open.start, end: this.tok.start });
    }
    /**
     * After the state space: attributes (.align N, .vN, type, .ptr...), name(s), ranges, dims,
     * initializer, `;`. `inList` is for parameter lists (no `;`, one name).
     */
    parseVarDeclRest(space, linkage, start, inStruct = false, spaceText, inList = false) {
        let align;
        let vector = 1;
        let type;
        let ptrSpace;
        // glued forms like `.v4.f32` arrive as one token
        const glued = spaceText && spaceText.includes('.', 1) ? spaceText.split('.').slice(2) : [];
        const takeAttr = (word, t) => {
            if (word === 'align') {
                align = Number(this.parseConstExpr());
            }
            else if (/^v\d+$/.test(word)) {
                vector = Number(word.slice(1));
            }
            else if (TYPE_NAMES.has(word) || word === 'texref' || word === 'surfref' || word === 'samplerref') {
                type = word;
            }
            else if (word === 'ptr') {
                ptrSpace = 'generic';
            }
            else if (ptrSpace !== undefined && (SPACES.has(word) || word === 'generic')) {
                ptrSpace = word;
            }
            else if (word === 'ptr' || word === 'attribute' || word === 'managed' || word === 'unified') {
                if (this.isPunct('('))
                    this.skipParens();
            }
            else if (LINKAGES.has(word)) {
                // accepted in either order
            }
            else {
                this.fail(`unknown attribute .${word} in declaration`, t);
            }
        };
        for (const g of glued)
            takeAttr(g, this.tok);
        for (;;) {
            const t = this.tok;
            if (t.kind !== 1 /* Tok.Dir */)
                break;
            this.next();
            for (const part of t.text.slice(1).split('.'))
                takeAttr(part, t);
        }
        if (type === undefined && this.tok.kind === 0 /* Tok.Word */ && this.structs.has(this.tok.text)) {
            type = this.next().text;
        }
        if (type === undefined) {
            // texture/surface refs and ISA 1.1 `.tex .u32 t` have a type; a missing one is an error
            if (space === 'tex' || space === 'surf' || space === 'sampler')
                type = space + 'ref';
            else
                this.fail(`expected a type in declaration but found ${describe(this.tok)}`);
        }
        // ISA 1.1 struct fields put the dimensions on the type: `.f32[4] v`
        const prefixDims = [];
        while (this.isPunct('[')) {
            this.next();
            prefixDims.push(this.isPunct(']') ? null : Number(this.parseConstExpr()));
            this.expectPunct(']');
        }
        const out = [];
        for (;;) {
            const nameTok = this.next();
            if (nameTok.kind !== 0 /* Tok.Word */)
                this.fail(`expected a name in declaration but found ${describe(nameTok)}`, nameTok);
            let rangeCount;
            if (this.isPunct('<')) {
                this.next();
                rangeCount = Number(this.parseConstExpr());
                this.expectPunct('>');
            }
            const dims = [...prefixDims];
            while (this.isPunct('[')) {
                this.next();
                if (this.isPunct(']'))
                    dims.push(null);
                else
                    dims.push(Number(this.parseConstExpr()));
                this.expectPunct(']');
            }
            let init;
            let fields;
            const opaque = type === 'texref' || type === 'samplerref' || type === 'surfref';
            if (this.eatPunct('=')) {
                if (opaque)
                    fields = this.parseOpaqueFields();
                else
                    init = this.parseInitializer();
            }
            out.push({
                kind: 'var', space, name: nameTok.text, type, vector, dims, align, linkage, rangeCount, init, ptrSpace,
                ...(fields ? { fields } : {}), span: this.spanFrom(start),
            });
            if (inList)
                return out;
            if (!this.eatPunct(','))
                break;
        }
        if (!inStruct || !this.isPunct('}'))
            this.expectPunct(';', 'after declaration');
        return out;
    }
    skipParens() {
        let depth = 0;
        do {
            if (this.isPunct('('))
                depth++;
            else if (this.isPunct(')'))
                depth--;
            this.next();
        } while (depth > 0 && this.tok.kind !== 6 /* Tok.Eof */);
    }
    /** `{ filter_mode = nearest, addr_mode_0 = wrap }`: the settings of an opaque variable. */
    parseOpaqueFields() {
        const out = [];
        this.expectPunct('{');
        if (!this.isPunct('}')) {
            do {
                const start = this.tok.start;
                const name = this.next();
                if (name.kind !== 0 /* Tok.Word */)
                    this.fail('expected a field name (filter_mode, addr_mode_0, ...)', name);
                this.expectPunct('=');
                const value = this.next();
                if (value.kind !== 0 /* Tok.Word */ && value.kind !== 2 /* Tok.Int */)
                    this.fail('expected a field value (nearest, linear, wrap, clamp_to_border, 0, 1, ...)', value);
                out.push({ name: name.text, value: value.text, span: this.spanFrom(start) });
            } while (this.eatPunct(','));
        }
        this.expectPunct('}');
        return out;
    }
    parseInitializer() {
        const start = this.tok.start;
        if (this.eatPunct('{')) {
            const items = [];
            if (!this.isPunct('}')) {
                do
                    items.push(this.parseInitializer());
                while (this.eatPunct(','));
            }
            this.expectPunct('}');
            return { kind: 'list', items, span: this.spanFrom(start) };
        }
        const t = this.tok;
        if (t.kind === 3 /* Tok.Float */) {
            this.next();
            return { kind: 'float', value: t.num, ...(t.f32Bits !== undefined ? { f32Bits: t.f32Bits } : {}), span: spanOf(t) };
        }
        if (this.isPunct('-') && this.peek().kind === 3 /* Tok.Float */) {
            this.next();
            const f = this.next();
            return { kind: 'float', value: -f.num, span: this.spanFrom(start) };
        }
        if (t.kind === 0 /* Tok.Word */ && (t.text === 'generic' || t.text === 'mask') && this.isPunct('(', this.peek())) {
            this.next();
            this.next();
            const s = this.next();
            if (s.kind !== 0 /* Tok.Word */)
                this.fail('expected a symbol in generic()', s);
            this.expectPunct(')');
            const addend = this.parseAddend();
            return { kind: 'sym', name: s.text, addend, generic: t.text === 'generic', span: this.spanFrom(start) };
        }
        if (t.kind === 0 /* Tok.Word */) {
            this.next();
            const addend = this.parseAddend();
            return { kind: 'sym', name: t.text, addend, generic: false, span: this.spanFrom(start) };
        }
        return { kind: 'int', value: this.parseConstExpr(), span: this.spanFrom(start) };
    }
    parseAddend() {
        if (this.isPunct('+') || this.isPunct('-')) {
            const neg = this.next().text === '-';
            const v = this.parseConstExpr();
            return neg ? -v : v;
        }
        return 0n;
    }
    // ---- functions --------------------------------------------------------------------------------
    parseFunction(linkage, start) {
        const isEntry = this.next().text === '.entry';
        let rets = [];
        if (!isEntry && this.isPunct('('))
            rets = this.parseParamList();
        const nameTok = this.next();
        if (nameTok.kind !== 0 /* Tok.Word */)
            this.fail(`expected a function name but found ${describe(nameTok)}`, nameTok);
        const ctaDims = [];
        while (this.isPunct('[')) {
            this.next();
            ctaDims.push(this.isPunct(']') ? 0 : Number(this.parseConstExpr()));
            this.expectPunct(']');
        }
        let params = [];
        let noreturn = false;
        const perf = new Map();
        const hasList = this.isPunct('(');
        if (hasList)
            params = this.parseParamList();
        for (;;) {
            const t = this.tok;
            if (this.isDir('noreturn')) {
                this.next();
                noreturn = true;
            }
            else if (t.kind === 1 /* Tok.Dir */ && PERF_DIRECTIVES.has(t.text.slice(1))) {
                this.next();
                const vals = [];
                if (this.tok.kind === 2 /* Tok.Int */ || this.isPunct('(')) {
                    do
                        vals.push(Number(this.parseConstExpr()));
                    while (this.eatPunct(','));
                }
                perf.set(t.text.slice(1), vals);
            }
            else if (this.isDir('pragma')) {
                this.parsePragma();
            }
            else
                break;
        }
        let body;
        if (this.eatPunct(';'))
            body = undefined;
        else if (this.isPunct('{')) {
            // ISA 1.1 entries without a parameter list take their parameters from the body
            const close = this.deferring && (hasList || !isEntry) ? this.skipBody() : -1;
            if (close >= 0) {
                const open = this.at(this.pos - 1).start;
                return deferredFunction(this, open, {
                    kind: 'function', isEntry, name: nameTok.text, linkage, rets, params, noreturn, perf, ctaDims,
                    span: this.spanFrom(start), nameSpan: spanOf(nameTok),
                });
            }
            body = this.parseBlockBody();
        }
        else
            this.fail(`expected '{' or ';' after function header but found ${describe(this.tok)}`);
        if (isEntry && !hasList && body !== undefined) {
            // ISA 1.1 entries have no parameter list: the `.param` declarations of the body are the
            // kernel's parameters, in order
            const hoisted = body.filter((s) => s.kind === 'var' && s.space === 'param');
            if (hoisted.length > 0) {
                params = hoisted;
                body = body.filter((s) => !(s.kind === 'var' && s.space === 'param'));
            }
        }
        return {
            kind: 'function', isEntry, name: nameTok.text, linkage, rets, params, body, noreturn, perf, ctaDims,
            span: this.spanFrom(start), nameSpan: spanOf(nameTok),
        };
    }
    parseParamList() {
        this.expectPunct('(');
        const out = [];
        if (this.eatPunct(')'))
            return out;
        do {
            const start = this.tok.start;
            const sp = this.next();
            if (sp.kind !== 1 /* Tok.Dir */ || !SPACES.has(spaceWord(sp.text)))
                this.fail(`expected .param or .reg in parameter list but found ${describe(sp)}`, sp);
            out.push(...this.parseVarDeclRest(normSpace(spaceWord(sp.text)), undefined, start, false, sp.text, true));
        } while (this.eatPunct(','));
        this.expectPunct(')', 'to close the parameter list');
        return out;
    }
    /**
     * At a body's `{`: moves past its matching `}` without parsing it and returns that brace's
     * offset, or -1 (nothing consumed) when the text needs the token parser to find the end.
     */
    skipBody() {
        if (this.base + this.toks.length - this.pos !== 1)
            return -1; // tokens beyond `{` already scanned
        const close = bodyEnd(this.source, this.tok.start);
        if (close < 0)
            return -1;
        this.pos++;
        this.scanner.seek(close + 1);
        this.fastEnd = close + 1;
        return close;
    }
    /** A deferred body, parsed from its `{` with this (finished) parser; its own diagnostics. */
    parseDeferred(open) {
        const saved = this.diags;
        this.diags = [];
        this.toks = [];
        this.base = 0;
        this.pos = 0;
        this.eof = undefined;
        this.fastEnd = 0;
        this.scanner.seek(open);
        try {
            const body = this.parseBlockBody();
            return { body, diagnostics: this.diags };
        }
        finally {
            this.diags = saved;
        }
    }
    /** `{ statements }` — consumes both braces. */
    parseBlockBody() {
        this.expectPunct('{');
        const body = [];
        for (;;) {
            this.fastStatements(body);
            if (this.isPunct('}')) {
                this.next();
                return body;
            }
            if (this.tok.kind === 6 /* Tok.Eof */) {
                this.error("unexpected end of file: missing '}'", this.tok);
                return body;
            }
            // A top-level directive inside a body means the closing brace was lost.
            if (this.isDir('entry') || this.isDir('func') || this.isDir('version') || this.isDir('visible') || this.isDir('section')) {
                this.error("missing '}' before this directive", this.tok);
                return body;
            }
            const before = this.pos;
            try {
                const s = this.parseStatement();
                if (s === undefined)
                    continue;
                if (isStatement(s))
                    body.push(s);
                else
                    body.push(...s);
            }
            catch (e) {
                if (!(e instanceof ParseError))
                    throw e;
                this.recover();
            }
            if (this.pos === before)
                this.pos++;
        }
    }
    parseStatement() {
        const t = this.tok;
        if (this.isPunct('{')) {
            const start = t.start;
            const body = this.parseBlockBody();
            const b = { kind: 'block', body, span: this.spanFrom(start) };
            return b;
        }
        if (this.isPunct(';')) {
            this.next();
            return undefined;
        }
        if (t.kind === 0 /* Tok.Word */ && this.isPunct(':', this.peek())) {
            if (this.isDir('callprototype', this.peek(2)))
                return this.parseCallPrototype();
            this.next();
            this.next();
            return { kind: 'label', name: t.text, span: spanOf(t) };
        }
        if (t.kind === 1 /* Tok.Dir */) {
            if (this.isDir('loc'))
                return this.parseLoc();
            if (this.isDir('pragma'))
                return this.parsePragma();
            if (this.isDir('file')) {
                // ISA 1.1 allows .file inside a body; it is module-wide information
                this.bodyFiles.push(this.parseFile());
                return undefined;
            }
            const start = t.start;
            let linkage;
            while (this.tok.kind === 1 /* Tok.Dir */ && LINKAGES.has(this.tok.text.slice(1)))
                linkage = this.next().text.slice(1);
            const sp = this.tok;
            if (sp.kind === 1 /* Tok.Dir */ && SPACES.has(spaceWord(sp.text))) {
                this.next();
                this.constBank(sp);
                return this.parseVarDeclRest(normSpace(spaceWord(sp.text)), linkage, start, false, sp.text);
            }
            if (this.isDir('func') || this.isDir('entry'))
                this.fail('nested function definitions are not allowed', sp);
            this.fail(`unknown directive ${describe(sp)} in function body`, sp);
        }
        if (this.isPunct('@') || t.kind === 0 /* Tok.Word */)
            return this.parseInstruction();
        this.fail(`expected an instruction but found ${describe(t)}`);
    }
    parseCallPrototype() {
        const start = this.tok.start;
        const name = this.next().text;
        this.next(); // ':'
        this.next(); // .callprototype
        let rets = [];
        if (this.isPunct('('))
            rets = this.parseParamList();
        const fname = this.next();
        if (fname.kind !== 0 /* Tok.Word */)
            this.fail('expected a placeholder name in .callprototype', fname);
        let params = [];
        if (this.isPunct('('))
            params = this.parseParamList();
        while (this.isDir('noreturn'))
            this.next();
        this.expectPunct(';');
        return { kind: 'callprototype', name, rets, params, span: this.spanFrom(start) };
    }
    // ---- instructions ----------------------------------------------------------------------------
    parseInstruction() {
        const start = this.tok.start;
        let guard;
        if (this.eatPunct('@')) {
            const gs = this.tok.start;
            const negate = this.eatPunct('!');
            const g = this.next();
            if (g.kind !== 0 /* Tok.Word */)
                this.fail('expected a predicate register after @', g);
            guard = { reg: g.text, negate, span: this.spanFrom(gs) };
        }
        const opTok = this.next();
        if (opTok.kind !== 0 /* Tok.Word */)
            this.fail(`expected an opcode but found ${describe(opTok)}`, opTok);
        const known = this.lookupOpcode(opTok.text);
        if (known === undefined) {
            // report the first part that is wrong
            const parts = opTok.text.split('.');
            const op = parts[0];
            if (!OPCODES.has(op))
                this.fail(`unknown instruction '${op}'`, { start: opTok.start, end: opTok.start + op.length });
            let off = opTok.start + op.length;
            for (const m of parts.slice(1)) {
                if (!isKnownModifier(m))
                    this.fail(`unknown modifier '.${m}' for '${op}'`, { start: off, end: off + 1 + m.length });
                off += 1 + m.length;
            }
            this.fail(`unknown instruction '${op}'`, opTok);
        }
        const opcode = known.opcode;
        let mods = known.mods;
        // Modifiers may also be written as separate tokens (`.reg`-style spacing is legal PTX).
        if (this.tok.kind === 1 /* Tok.Dir */) {
            const more = mods.slice();
            while (this.tok.kind === 1 /* Tok.Dir */) {
                const d = this.next();
                for (const m of d.text.slice(1).split('.')) {
                    if (!isKnownModifier(m))
                        this.fail(`unknown modifier '.${m}' for '${opcode}'`, d);
                    more.push(m);
                }
            }
            mods = more;
        }
        if (VECTOR_ALU.has(opcode) && mods.some((m) => m === 'v2' || m === 'v3' || m === 'v4')) {
            // element-by-element vector arithmetic (ISA 1.1 6.4.3 `add.v4.s32 v3, v2, v1`)
            this.fail(this.isa1x
                ? `vector arithmetic ('${opcode}.${mods.join('.')}') is unimplemented: "Vector operands are not generally supported. The LD, ST, and TEX instructions do support limited use of vector operands written using the tuple notation." (PTX ISA 1.1, 10.5.3)`
                : `'${opcode}' takes no vector modifier (.v2/.v3/.v4 are for ld, st, tex and the like)`, opTok);
        }
        if ((opcode === 'div' || opcode === 'rem') && (mods.includes('wide') || (this.isa1x && (mods.includes('u64') || mods.includes('s64'))))) {
            // the ISA 1.1 release notes of div and rem; no later ISA has .wide (64-bit div/rem came with 2.0)
            const form = mods.includes('wide') ? `${opcode}.wide` : `${opcode}.${mods.includes('u64') ? 'u64' : 's64'}`;
            this.fail(`'${form}' is unimplemented: "${opcode}.wide and ${opcode}.{u64,s64} are unimplemented" (PTX ISA 1.1, ${opcode} release notes)${mods.includes('wide') ? '; no later ISA defines .wide' : ''}`, opTok);
        }
        // gathered in a scratch list and copied at their exact length: an array grown by push keeps
        // room for 16, which was the largest part of a big module's AST
        const scratch = this.operandScratch;
        scratch.length = 0;
        if (!this.isPunct(';')) {
            do
                scratch.push(this.parseOperand());
            while (this.eatPunct(','));
        }
        const operands = scratch.slice();
        this.expectPunct(';', `after '${opTok.text}' operands`);
        return new InstructionNode(opcode, mods, guard, operands, start, this.endFrom(start), opTok.start, opTok.end);
    }
    parseOperand() {
        const t = this.tok;
        const start = t.start;
        if (this.isPunct('(')) {
            // call lists `(a, b)` vs constant expressions `(4*8)`
            const p1 = this.peek();
            if (p1.kind === 0 /* Tok.Word */ || this.isPunct(')', p1)) {
                this.next();
                const items = [];
                if (!this.isPunct(')')) {
                    do
                        items.push(this.parseOperand());
                    while (this.eatPunct(','));
                }
                this.expectPunct(')');
                return { kind: 'list', items, span: this.spanFrom(start) };
            }
        }
        if (this.eatPunct('{')) {
            const items = [];
            if (!this.isPunct('}')) {
                do
                    items.push(this.parseOperand());
                while (this.eatPunct(','));
            }
            this.expectPunct('}');
            return { kind: 'vec', items, span: this.spanFrom(start) };
        }
        if (this.eatPunct('[')) {
            const first = this.parseAddressTerm();
            if (this.eatPunct(',')) {
                const items = [first];
                do
                    items.push(this.parseOperand());
                while (this.eatPunct(','));
                this.expectPunct(']');
                return { kind: 'addrList', items, span: this.spanFrom(start) };
            }
            this.expectPunct(']');
            if (first.kind === 'addr')
                return new AddrOperand(first.base, first.offset, start, this.endFrom(start));
            return new AddrOperand(first, 0n, start, this.endFrom(start));
        }
        if (this.isPunct('!')) {
            this.next();
            const inner = this.parseOperand();
            return { kind: 'not', inner, span: this.spanFrom(start) };
        }
        if (this.isPunct('-') && this.peek().kind === 0 /* Tok.Word */) {
            this.next();
            const inner = this.parseOperand();
            return { kind: 'neg', inner, span: this.spanFrom(start) };
        }
        if (t.kind === 3 /* Tok.Float */ || (this.isPunct('-') && this.peek().kind === 3 /* Tok.Float */)) {
            const neg = this.eatPunct('-');
            const f = this.next();
            const bits = f.f32Bits === undefined ? undefined : neg ? (f.f32Bits ^ 0x80000000) >>> 0 : f.f32Bits;
            return { kind: 'float', value: neg ? -f.num : f.num, f32Bits: bits, span: this.spanFrom(start) };
        }
        if (t.kind === 0 /* Tok.Word */) {
            this.next();
            if (t.text === '_')
                return { kind: 'sink', span: spanOf(t) };
            const isReg = t.text.charCodeAt(0) === 37; // '%'
            if (this.isPunct('|')) {
                this.next();
                const b = this.parseOperand();
                const a = new RegOperand(t.text, t.start, t.end);
                return { kind: 'pair', a, b, span: this.spanFrom(start) };
            }
            if (!isReg && this.isPunct('[')) {
                // array[imm], array[reg], array[reg+imm], array[reg-imm]: an element of the array
                this.next();
                let reg;
                let idx = 0n;
                if (this.tok.kind === 0 /* Tok.Word */) {
                    reg = this.next().text;
                    if (this.isPunct('+') || this.isPunct('-'))
                        idx = this.parseAddend();
                }
                else
                    idx = this.parseConstExpr();
                this.expectPunct(']');
                return { kind: 'index', name: t.text, reg, index: idx, span: this.spanFrom(start) };
            }
            if (!isReg && (this.isPunct('+') || (this.isPunct('-') && this.peek().kind === 2 /* Tok.Int */))) {
                const addend = this.parseAddend();
                return new SymOperand(t.text, addend, start, this.endFrom(start));
            }
            // `%r + 1` as a plain source operand (ptxas accepts `+ constant` after a register, not `-`):
            // a name with an addend, which resolution turns into a register plus a constant
            if (isReg && this.isPunct('+')) {
                const addend = this.parseAddend();
                return new SymOperand(t.text, addend, start, this.endFrom(start));
            }
            return isReg ? new RegOperand(t.text, t.start, t.end) : new SymOperand(t.text, 0n, t.start, t.end);
        }
        const value = this.parseConstExpr();
        return { kind: 'int', value, span: this.spanFrom(start) };
    }
    /** Inside `[...]`: reg, sym, reg+imm, sym+imm, imm, reg+-imm. */
    parseAddressTerm() {
        const start = this.tok.start;
        const t = this.tok;
        if (t.kind === 0 /* Tok.Word */) {
            this.next();
            const base = t.text.charCodeAt(0) === 37 ? new RegOperand(t.text, t.start, t.end) : new SymOperand(t.text, 0n, t.start, t.end);
            let offset = 0n;
            while (this.isPunct('+') || this.isPunct('-')) {
                const neg = this.next().text === '-';
                const v = this.parseUnary();
                offset += neg ? -v : v;
            }
            return new AddrOperand(base, offset, start, this.endFrom(start));
        }
        if (this.isPunct('{'))
            return this.parseOperand();
        const v = this.parseConstExpr();
        return new AddrOperand(undefined, v, start, this.endFrom(start));
    }
    // ---- constant expressions (C precedence, 64-bit wrap) ------------------------------------------
    parseConstExpr() {
        return this.parseBinary(0);
    }
    parseBinary(minPrec) {
        let lhs = this.parseUnary();
        for (;;) {
            const t = this.tok;
            // a lone `%` scans as a word (it starts register names); between constants it is modulo
            if (t.kind !== 5 /* Tok.Punct */ && !(t.kind === 0 /* Tok.Word */ && t.text === '%'))
                return lhs;
            let op = t.text;
            if ((op === '<' || op === '>') && this.isPunct(op, this.peek()))
                op = op + op;
            const prec = BIN_PREC[op];
            if (prec === undefined || prec < minPrec)
                return lhs;
            this.next();
            if (op.length === 2)
                this.next();
            const rhs = this.parseBinary(prec + 1);
            lhs = applyBinary(op, lhs, rhs, () => this.fail('division by zero in constant expression', t));
        }
    }
    parseUnary() {
        const t = this.tok;
        if (this.eatPunct('-'))
            return -this.parseUnary();
        if (this.eatPunct('+'))
            return this.parseUnary();
        if (this.eatPunct('~'))
            return ~this.parseUnary();
        if (this.eatPunct('!'))
            return this.parseUnary() === 0n ? 1n : 0n;
        if (this.eatPunct('(')) {
            const v = this.parseConstExpr();
            this.expectPunct(')');
            return v;
        }
        if (t.kind === 2 /* Tok.Int */) {
            this.next();
            return t.int;
        }
        this.fail(`expected a constant but found ${describe(t)}`, t);
    }
}
const BIN_PREC = {
    '|': 1, '^': 2, '&': 3, '<<': 5, '>>': 5, '+': 6, '-': 6, '*': 7, '/': 7, '%': 7,
};
function applyBinary(op, a, b, divZero) {
    switch (op) {
        case '+': return BigInt.asIntN(64, a + b);
        case '-': return BigInt.asIntN(64, a - b);
        case '*': return BigInt.asIntN(64, a * b);
        case '/':
            if (b === 0n)
                divZero();
            return a / b;
        case '%':
            if (b === 0n)
                divZero();
            return a % b;
        case '<<': return BigInt.asIntN(64, a << (b & 63n));
        case '>>': return a >> (b & 63n);
        case '&': return a & b;
        case '|': return a | b;
        default: return a ^ b;
    }
}
/**
 * Where a body that opens at `open` closes, by braces outside comments and strings; -1 where that
 * is not plain: an unterminated string or comment, or a directive that ends a body or carries
 * module state (the token parser then reports or recovers as it always does).
 */
const BODY_TEXT = /[{}"]|\/[/*]|\.(?:entry|func|visible|version|section|file)(?![\w$])/g;
export function bodyEnd(source, open) {
    const re = BODY_TEXT;
    re.lastIndex = open + 1;
    let depth = 1;
    for (let m = re.exec(source); m !== null; m = re.exec(source)) {
        const i = m.index;
        const c = source.charCodeAt(i);
        if (c === 123)
            depth++;
        else if (c === 125) {
            if (--depth === 0)
                return i;
        }
        else if (c === 34) {
            let k = i + 1;
            for (; k < source.length; k++) {
                const d = source.charCodeAt(k);
                if (d === 92)
                    k++;
                else if (d === 34 || d === 10)
                    break;
            }
            if (source.charCodeAt(k) !== 34)
                return -1;
            re.lastIndex = k + 1;
        }
        else if (c === 47) {
            if (source.charCodeAt(i + 1) === 47) {
                const nl = source.indexOf('\n', i);
                if (nl < 0)
                    return -1;
                re.lastIndex = nl + 1;
            }
            else {
                const close = source.indexOf('*/', i + 2);
                if (close < 0)
                    return -1;
                re.lastIndex = close + 2;
            }
        }
        else
            return -1;
    }
    return -1;
}
/** A function whose body stays text until read (ParseOptions.deferBodies). */
function deferredFunction(parser, open, header) {
    let parsed;
    const diagnostics = [];
    const deferred = { open, diagnostics, get read() { return parsed !== undefined; } };
    return {
        ...header,
        deferred,
        get body() {
            if (parsed === undefined) {
                const r = parser.parseDeferred(open);
                parsed = r.body;
                diagnostics.push(...r.diagnostics);
            }
            return parsed;
        },
    };
}
/** A token's extent alone (a token kept as a span would keep its text and value alive too). */
function spanOf(t) {
    return { start: t.start, end: t.end };
}
function isStatement(s) {
    return !Array.isArray(s);
}
function dataWidth(dir) {
    switch (dir) {
        case '.b8':
        case '.byte':
        case '.u8':
        case '.s8': return 1;
        case '.b16':
        case '.u16':
        case '.s16': return 2;
        case '.b32':
        case '.u32':
        case '.s32':
        case '.word': return 4;
        case '.b64':
        case '.u64':
        case '.s64':
        case '.quad': return 8;
        default: return 0;
    }
}
function spaceWord(dirText) {
    const dot = dirText.indexOf('.', 1);
    return dot < 0 ? dirText.slice(1) : dirText.slice(1, dot);
}
function normSpace(word) {
    if (word === 'texref')
        return 'tex';
    if (word === 'surfref')
        return 'surf';
    if (word === 'samplerref')
        return 'sampler';
    return word;
}
function unquote(s) {
    if (s.length < 2 || s[0] !== '"')
        return s;
    return s.slice(1, s.endsWith('"') ? -1 : undefined).replace(/\\(.)/g, (_m, c) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
}
function describe(t) {
    switch (t.kind) {
        case 6 /* Tok.Eof */: return 'end of file';
        case 4 /* Tok.Str */: return `string ${t.text.length > 20 ? t.text.slice(0, 20) + '…' : t.text}`;
        case 5 /* Tok.Punct */: return `'${t.text}'`;
        default: return `'${t.text.length > 40 ? t.text.slice(0, 40) + '…' : t.text}'`;
    }
}
/** `major.minor` version text is older than `major.minor`. */
function versionBefore(text, major, minor) {
    const [a, b] = text.split('.').map((x) => Number(x));
    if (a === undefined || !Number.isFinite(a))
        return false;
    return a < major || (a === major && (b ?? 0) < minor);
}
//# sourceMappingURL=parser.js.map