// Where a value enters the program: a declaring call (`add_argument("--x")`,
// `flag.String("x", …)`), an environment read, a flag bound into a
// destination. Decides the producer step, the default it declares (its
// precedence), and where the produced value lives on (the hop the trace
// follows): the binding it lands in, a getter's callers, a flag's
// destination — and where it does not (the parser a declaring chain builds).
import type { FlowRole } from '../../core/contracts.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import { calledAsFunction, parsedArgumentReceivers } from '../languages/syntax.js';
import { MEMBER_TYPES, branchCondition, branchWord, descendants, enclosingFunction, lastName, referenceText, shapes, snippet, within, type Family } from './syntax.js';
import type { Spellings } from './spellings.js';
import { declaredFlagDefault, enclosingFlagBinding, flagDefault, flagDestination, single } from './go.js';
import { hopTo, hopToBinding, type Hop } from './hops.js';
import { bindingScope } from './scope.js';
import { isTailExpression } from './rust.js';
import type { AlsoStep, Verdict } from './verdict.js';
import { DEFAULTING_CALL, ENV_READ, calleeName, keywordDefault, stringContent } from './value-syntax.js';

/** At most this many lines between a function's signature and the read it returns make it a getter, cited whole. */
const GETTER_HEAD_LINES = 4;

/** What the producer rules take from the classifier they serve. */
export interface ClassifierSteps {
  step(role: FlowRole, node: SyntaxNode, description: string): Verdict & { kind: 'step' };
  /** The consumer verdict of a branch `start` decides. */
  consumerVerdict(branch: SyntaxNode, start: SyntaxNode): Verdict;
}

export class ProducerRules {
  private readonly s;

  constructor(
    private readonly family: Family,
    private readonly spellings: Spellings,
    private readonly host: ClassifierSteps,
  ) {
    this.s = shapes(family);
  }

  /**
   * `let path = match env::var_os("APP_PATH") { … }`: the value enters the
   * program here and lives on in the local, which the trace follows.
   */
  producerVerdict(call: SyntaxNode, text?: string): Verdict {
    const verdict = this.producerFlow(call, text);
    if (verdict.kind !== 'step' || verdict.also?.some((a) => a.role === 'precedence')) return verdict;
    // `hide = flag.String("hide", "", usage)`, `click.option("--max-rounds", default=10)`: without the
    // option, the declared default is the value.
    const go = this.family === 'go' ? declaredFlagDefault(call) : null;
    const keyword = go ? null : keywordDefault(call);
    const fallback = go?.text ?? keyword?.value;
    if (fallback) return { ...verdict, also: [...(verdict.also ?? []), { role: 'precedence', node: keyword?.node ?? call, description: `flag ${this.flagLabel(call)} defaults to \`${snippet(fallback, 40)}\`` }] };
    // `env::var_os("APP_MAXAGE").map_or(10_000, …)`, `env::var("X").unwrap_or(d)`: without the read
    // value, the method's fallback is the value.
    const defaulting = this.defaultingReceiverCall(call);
    if (!defaulting) return verdict;
    const first = defaulting.childForFieldName(this.s.calls[defaulting.type]![1])?.namedChildren.find((a) => a !== null && !this.s.comments.has(a.type));
    const callee = calleeName(defaulting, this.s.calls[defaulting.type]![0]).replace(/^.*\./, '');
    const what = first ? `falls back to \`${snippet(first.text, 40)}\`` : "falls back to the type's default";
    return { ...verdict, also: [...(verdict.also ?? []), { role: 'precedence', node: defaulting, description: `\`${callee}\` ${what} when nothing is read` }] };
  }

  /**
   * `words, err := parseShellWords(os.Getenv("FZF_DEFAULT_OPTS"))`, `int(os.environ.get("N", "3"))`: the
   * read value is handed to a call at once, which converts it; the trace goes on into the callee's
   * parameter (a function of the repository) or into the binding that keeps its result.
   */
  private handedOn(verdict: Verdict, outer: SyntaxNode): Verdict {
    if (verdict.kind !== 'step') return verdict;
    const callee = calleeName(outer, this.s.calls[outer.type]![0]);
    const resultHop = hopToBinding(this.family, this.spellings, outer);
    const also = [...(verdict.also ?? []), { role: 'transformation' as const, node: outer, description: `the value read is passed to \`${callee}\`` }];
    return { ...verdict, also, passedTo: callee, argumentCall: outer, resultHop };
  }

  /** The innermost call made on the value `call` produced (its receiver, possibly through `?` or `.await`), when it supplies a default. */
  private defaultingReceiverCall(call: SyntaxNode): SyntaxNode | null {
    let prev = call;
    for (let n = call.parent; n && !this.s.containers.has(n.type); prev = n, n = n.parent) {
      const shape = this.s.calls[n.type];
      if (!shape) {
        if (MEMBER_TYPES.has(n.type) || n.type === 'try_expression' || n.type === 'await_expression' || n.type === 'parenthesized_expression') continue;
        return null;
      }
      const callee = n.childForFieldName(shape[0]);
      if (!callee || !within(prev, callee) || !MEMBER_TYPES.has(callee.type)) return null;
      if (DEFAULTING_CALL.test(calleeName(n, shape[0]))) return n;
    }
    return null;
  }

  /**
   * `argv.cors`, `argv['proxy-options']` where `argv = minimist(process.argv.slice(2))`: a parser
   * that takes no declarations is read by the option's name, and the read is where the value
   * enters the program (languages/syntax.ts parsedArgumentReceivers).
   */
  parsedArgumentRead(start: SyntaxNode): Verdict | null {
    if (this.family !== 'js') return null;
    const read = [start.parent, start.parent?.parent].find((n) => n?.type === 'member_expression' || n?.type === 'subscript_expression');
    const key = read?.childForFieldName(read.type === 'member_expression' ? 'property' : 'index');
    const object = read?.childForFieldName('object');
    if (!read || !key || !within(start, key) || object?.type !== 'identifier' || !parsedArgumentReceivers(read.tree.rootNode).has(object.text)) return null;
    // A method of the parsed object (`argv.hasOwnProperty(…)`) reads no option.
    if (calledAsFunction(read)) return null;
    const verdict = this.producerVerdict(read, `\`${snippet(read.text, 40)}\` read from the command line parsed into \`${object.text}\``);
    if (verdict.kind !== 'step') return verdict;
    // The parsed object is where the value lives, as a parser's field does (cited when nothing else carries it).
    return { ...verdict, also: [...(verdict.also ?? []), { role: 'carrier', node: read, description: `\`${snippet(read.text, 40)}\` of the parsed arguments carries the value` }] };
  }

  private producerFlow(call: SyntaxNode, text?: string): Verdict {
    const verdict = this.host.step('producer', call, text ?? this.producerText(call));
    // Only a call names the option; a read of the parsed arguments (`text` given) looks the value up.
    const names = text === undefined && this.namesOption(call);
    let prev = call;
    for (let n = call.parent; n && !this.s.containers.has(n.type); prev = n, n = n.parent) {
      // `yargs(…).group(['k', 'kill-timeout'], 'Killing').epilogue(…)`: a call that names the option and
      // whose result is chained on returns the parser being built, not the option's value.
      if (names && MEMBER_TYPES.has(n.type) && n.namedChildren[0]?.equals(prev) === true) return verdict;
      // `if parsed_args.get("system_site_packages"):`: the read itself decides the branch. (A `match` on the
      // read picks what its arms make of it, which the walk goes on to find the binding of.)
      const cond = branchCondition(this.family, n);
      if (cond && within(prev, cond) && ['if', 'while'].includes(branchWord(n.type))) {
        const decided = this.host.consumerVerdict(n, call);
        if (decided.kind !== 'step') return verdict;
        return { ...verdict, hop: decided.hop, also: [{ role: 'consumer', node: decided.node, description: decided.description }, ...(decided.also ?? [])] };
      }
      // `app = app.arg(Arg::new("tabs"))`: the declaring call is handed to a builder; the builder is not the value.
      const outer = this.s.calls[n.type];
      const args = outer ? n.childForFieldName(outer[1]) : null;
      if (args && within(prev, args)) {
        // `flags.BoolVar(&opts.quiet, "quiet", truthy(lookEnv("APP_QUIET")), …)`: the default lands in the flag's destination.
        const binding = enclosingFlagBinding(this.family, n, this.s.containers);
        const bound = binding ? flagDestination(this.family, binding) : null;
        if (!binding || !bound || within(call, bound)) return ENV_READ.test(call.text) && !names ? this.handedOn(verdict, n) : verdict;
        const flag = this.flagLabel(binding);
        const also = [{ role: 'precedence' as const, node: binding, description: `flag ${flag} overrides the default read here` }];
        return { ...verdict, hop: this.destinationHop(bound, binding), also };
      }
      const keyed = this.s.keyed[n.type];
      if (keyed) {
        // `Config { tab_width: matches.get_one("tabs")… }`: the value lives on in the field being initialised.
        const key = n.childForFieldName(keyed[0]);
        const value = n.childForFieldName(keyed[1]);
        if (!key || !value || !within(prev, value) || !/^[A-Za-z_$][\w$]*$/.test(key.text) || this.spellings.mentions(key.text)) return verdict;
        return { ...verdict, hop: { name: key.text, scope: null, origin: n } };
      }
      // `fn maxage() -> u32 { env::var_os("APP_MAXAGE").map_or(…) }`, `return os.environ.get("X")`:
      // the function's result is the value, wherever it is called.
      if (this.s.returns.has(n.type) || (this.family === 'rust' && isTailExpression(n))) {
        const returnedFrom = enclosingFunction(this.family, n);
        if (!returnedFrom || verdict.kind !== 'step') return verdict;
        // A getter is cited from its signature: the name its callers keep the value under is in the step.
        const getter = call.startPosition.row - returnedFrom.startPosition.row <= GETTER_HEAD_LINES;
        return { ...verdict, returnedFrom, ...(getter ? { from: returnedFrom } : {}) };
      }
      const binding = this.s.bindings[n.type];
      if (!binding) continue;
      const value = n.childForFieldName(binding[1]);
      const target = single(n.childForFieldName(binding[0]), value);
      if (!target || !value || !within(prev, value)) return verdict;
      // `z = flag.Duration("z", 0, "")`: a variable named like the option is where the value lives (the trace finds its reads by name).
      if (this.spellings.mentions(target.text)) return target.type === 'identifier' && verdict.kind === 'step' ? { ...verdict, carrier: { node: n, description: `variable \`${target.text}\` carries the value` } } : verdict;
      // `args = exclude(args, '--x')` rewrites `args` itself; the option's value does not land in it.
      const callShape = this.s.calls[call.type];
      if (callShape && call.childForFieldName(callShape[1])?.namedChildren.some((a) => a?.text === target.text)) return verdict;
      // `options.warmup_count = param("warmup")`: the value lives on in a field, wherever it is read.
      const field = MEMBER_TYPES.has(target.type) ? lastName(target) : null;
      if (field) return { ...verdict, hop: { name: field, scope: null, origin: n } };
      if (target.type !== 'identifier') return verdict;
      const scope = bindingScope(this.family, n, target.text);
      const what = scope ? 'local' : 'variable';
      return { ...verdict, carrier: { node: n, description: `${what} \`${target.text}\` carries the value` }, hop: { name: target.text, scope, origin: n, global: scope === null } };
    }
    return verdict;
  }

  /** `flags.IntVar(&opts.limit, "limit", 0, …)`: the flag writes into its destination, whose other uses carry the value on. */
  flagBindingVerdict(call: SyntaxNode, dest: SyntaxNode, occurrence: SyntaxNode): Verdict {
    const name = this.flagLabel(call);
    // The flag's own name (`flag.BoolVar(&noSortFlag, "no-sort", …)`) leads to the destination as well:
    // a destination named apart from the option (`noSortFlag`) is found from nowhere else.
    if (within(occurrence, dest) || this.s.strings.has(occurrence.type)) {
      // Without the flag on the command line, the declared default is what the destination holds.
      const fallback = flagDefault(call);
      const hop = this.destinationHop(dest, call);
      const also: AlsoStep[] = fallback ? [{ role: 'precedence', node: call, description: `flag ${name} defaults to \`${snippet(fallback.text, 40)}\`` }] : [];
      // A package variable (`&noSort`, `&processor.MaxMean`) has no field declaration to cite: the binding is where it is named as the value's home.
      if (hop?.global || hop?.goPackage) also.push({ role: 'carrier', node: call, description: `variable \`${snippet(dest.text, 60)}\` carries the value` });
      return { ...this.host.step('producer', call, `flag ${name} writes into \`${snippet(dest.text, 60)}\``), hop, also: also.length > 0 ? also : undefined };
    }
    // Any other argument the call reads is its default.
    return this.host.step('precedence', call, `\`${snippet(referenceText(occurrence), 60)}\` is the default of flag ${name}`);
  }

  private flagLabel(call: SyntaxNode): string {
    const flagName = descendants(call.childForFieldName(this.s.calls[call.type]![1])!, (d) => this.s.strings.has(d.type));
    return flagName ? `\`${snippet(stringContent(flagName), 40)}\`` : 'a flag';
  }

  private destinationHop(dest: SyntaxNode, origin: SyntaxNode): Hop | undefined {
    return hopTo(this.family, this.spellings, dest, origin);
  }

  /** The first string literal in `n` that names the option or key (`'--dry-run'`, `"APP_TOKEN"`), if any. */
  optionLiteral(n: SyntaxNode): SyntaxNode | null {
    return descendants(n, (d) => this.s.strings.has(d.type) && this.spellings.isOptionLiteral(stringContent(d)));
  }

  /** Parsing the command line or reading the environment: where a value enters the program. */
  producesValue(n: SyntaxNode): boolean {
    return ENV_READ.test(n.text) || this.optionLiteral(n) !== null;
  }

  /** The call names the option (a dashed name, or a name in a list) rather than looking a value up by its key. */
  private namesOption(call: SyntaxNode): boolean {
    if (ENV_READ.test(call.text)) return false;
    const literal = this.optionLiteral(call);
    return literal !== null && (stringContent(literal).includes('-') || /array|list/.test(literal.parent?.type ?? ''));
  }

  private producerText(call: SyntaxNode): string {
    const callee = calleeName(call, this.s.calls[call.type]![0]);
    const literal = this.optionLiteral(call);
    if (!literal) return `value read by \`${callee}\``;
    const content = snippet(stringContent(literal), 60);
    // A dashed name is an option being declared; a bare key is a value being looked up.
    return content.includes('-') ? `\`${content}\` declared by \`${callee}\`` : `\`${content}\` read by \`${callee}\``;
  }
}
