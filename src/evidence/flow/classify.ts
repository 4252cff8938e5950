// Decides what one occurrence of the carrier identifier does: produce the
// value, carry it, copy it, combine it with another source, or change
// behaviour with it. The decision comes from the nearest enclosing construct in
// the syntax tree, never from the line's text alone, so `if cfg.dry_run` and
// `// dry_run` are told apart.
import type { FlowRole } from '../../core/contracts.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import {
  MEMBER_TYPES,
  isArithmeticAssignment,
  lastName,
  pairedBinding,
  referenceText,
  rootOf,
  ancestors,
  branchWord,
  enclosingFunction,
  isClassBodyStatement,
  branchCondition,
  enclosingFunctionName,
  enclosingRecordName,
  isPlainParameter,
  recordHeader,
  shapes,
  snippet,
  within,
  type Family,
} from './syntax.js';
import type { Spellings } from './spellings.js';
import { flagDestination, single } from './go.js';
import { hopTo, hopToBinding, type Hop } from './hops.js';
import { bindingScope } from './scope.js';
import { isTailExpression, outputMacro, parsedFallbacks, yieldsTail } from './rust.js';
import { isRustTestItem, isTupleConstructor, namesModuleOrType, precedingAttributes, recordDerivesParser, rustStep } from './rust.js';

import type { AlsoStep, Verdict } from './verdict.js';
import { isSubjectTag, taggedFieldVerdict, typerParameterVerdict } from './filled-declarations.js';
import { ProducerRules, type ClassifierSteps } from './producers.js';
import {
  actsOnReceiver,
  combinesSources,
  overrideCondition,
  DECLARED_WITHOUT_VALUE,
  DEFAULTING_CALL,
  DESTRUCTURED_NAMES,
  ENV_READ,
  LITERAL,
  NAMED_DEFAULT,
  PARSER_ATTRIBUTE,
  calleeName,
  isEnvironmentKey,
  isTypeReference,
  stringContent,
} from './value-syntax.js';

export type { Hop } from './hops.js';
export type { Verdict } from './verdict.js';

/** A record key naming a default (`default:`, `'default':`, `defaultValue:`, `default_value=`). */
const DEFAULT_KEY = /^["'`]?(default|defaultValue|default_value)["'`]?$/;

/** A hop into what the value decided (see Hop.derived). */
const derivedHop = (hop: Hop | undefined): Hop | undefined => (hop ? { ...hop, derived: true } : undefined);

export class Classifier implements ClassifierSteps {
  private readonly s;
  private readonly producers: ProducerRules;

  constructor(
    private readonly family: Family,
    private readonly spellings: Spellings,
  ) {
    this.s = shapes(family);
    this.producers = new ProducerRules(family, spellings, this);
  }

  classify(leaf: SyntaxNode): Verdict {
    const chain = [leaf, ...ancestors(leaf)];
    // A word inside a regular expression (`/(sh|shell|bash)/`) is a pattern's text, not a value.
    if (chain.some((n) => this.s.comments.has(n.type) || n.type === 'regex')) return { kind: 'ignored' };
    if (this.family === 'rust' && (chain.some(isRustTestItem) || namesModuleOrType(leaf))) return { kind: 'ignored' };
    // A type annotation or an import names a type or binding; no value moves there (`metafile?: Metafile`).
    if (this.family === 'js' && (isTypeReference(leaf) || chain.some((n) => n.type === 'import_statement'))) return { kind: 'ignored' };
    let start = leaf;
    const str = this.enclosingString(chain);
    if (str) {
      // A Go struct field's tag (`long:"raw-output"`, `mapstructure:"backend-url"`) names the subject for a parser or decoder that fills the field.
      const tag = this.family === 'go' && isSubjectTag(str, this.spellings);
      if (!tag && !this.spellings.isOptionLiteral(stringContent(str))) {
        // A `{name}` inside a format string is a read the trace cannot follow; prose is not.
        return this.isFormatTemplate(str) && this.spellings.isInterpolated(str.text) ? { kind: 'unaccounted' } : { kind: 'ignored' };
      }
      start = str;
    }
    const attribute = chain.find((n) => n.type === 'attribute_item');
    if (attribute) return this.attributeVerdict(attribute);
    const rust = this.family === 'rust' && start === leaf ? this.rustVerdict(leaf) : null;
    return rust ?? this.walk(start);
  }

  private rustVerdict(leaf: SyntaxNode): Verdict | null {
    const shape = rustStep(leaf);
    if (!shape) return null;
    const symbol = shape.symbol ?? enclosingFunctionName(this.family, shape.node);
    return { kind: 'step', role: shape.role, node: shape.node, symbol, description: shape.description };
  }

  /**
   * Python parses f-string substitutions as code, so braces in any other string
   * (a docstring quoting `{ctx.prefix}_{name}`) are prose unless `.format` fills them.
   * Rust formats only inside macros (`format!`, `write!`): `\flag{hidden}` in a doc string is prose.
   */
  private isFormatTemplate(str: SyntaxNode): boolean {
    if (this.family === 'rust') return ancestors(str).some((n) => n.type === 'macro_invocation');
    // A JavaScript template parses its `${…}` as code, which the trace reads as such: its text is prose.
    if (this.family === 'js') return false;
    if (this.family !== 'python') return true;
    const p = str.parent;
    return p?.type === 'attribute' && p.childForFieldName('object')?.equals(str) === true && p.childForFieldName('attribute')?.text === 'format';
  }

  private enclosingString(chain: SyntaxNode[]): SyntaxNode | null {
    for (const n of chain) {
      if (n.type === 'interpolation' || n.type === 'template_substitution') return null;
      if (this.s.strings.has(n.type)) return n;
    }
    return null;
  }

  private walk(start: SyntaxNode): Verdict {
    const named = this.definitionNamed(start);
    if (named) return named;
    const setter = this.setterCall(start);
    if (setter) return setter;
    const parsedRead = this.producers.parsedArgumentRead(start);
    if (parsedRead) return parsedRead;
    let pendingCall: SyntaxNode | null = null;
    let resultBinding: SyntaxNode | null = null;
    let prev = start;
    for (let n: SyntaxNode | null = start; n; prev = n, n = n.parent) {
      if (n !== start && this.s.containers.has(n.type) && !(this.family === 'rust' && yieldsTail(n, prev))) break;
      // Rust macro arguments are a token tree, not calls: `println!("{}", url)` prints the value, `format!` formats it.
      if (this.family === 'rust' && n.type === 'macro_invocation' && n !== start && !pendingCall) return this.macroVerdict(n, start);
      const field = this.s.fields[n.type];
      if (field !== undefined) return this.fieldVerdict(n, field, prev);
      if (this.isParam(n, prev)) return this.paramVerdict(n);
      const defaulted = this.parameterDefault(n, prev);
      if (defaulted) return defaulted;
      const cond = branchCondition(this.family, n);
      if (cond && n !== start && within(prev, cond)) return this.consumerVerdict(n, start);
      const binding = this.s.bindings[n.type];
      if (binding && pendingCall) {
        resultBinding = n;
        break;
      }
      if (binding) {
        const [t, v] = binding;
        const target = n.childForFieldName(t);
        const value = n.childForFieldName(v);
        if (target && value) return this.bindingVerdict(n, target, value, prev, start);
        // `show_default: bool | None` in a class body: an annotated attribute without a value.
        if (target && within(prev, target) && this.family === 'python' && isClassBodyStatement(n)) {
          const record = enclosingRecordName(this.family, n);
          return { kind: 'step', role: 'carrier', node: n, symbol: target.text, description: `\`${record ? `${record}.` : ''}${target.text}\` carries the value` };
        }
        // `var ( width uint )`, `let width: number;`: a variable declared to be filled later holds the value.
        if (target && within(prev, target) && DECLARED_WITHOUT_VALUE.has(n.type)) {
          return this.step('carrier', n, `variable \`${target.text}\` carries the value`);
        }
      }
      const keyed = this.s.keyed[n.type];
      if (keyed) {
        const key = n.childForFieldName(keyed[0]);
        const value = n.childForFieldName(keyed[1]);
        if (key && value) return this.keyedVerdict(n, key, value, prev, start);
      }
      // A constructor's `Self { literal, … }` stores the parameter in the receiver's own field, read as `self.literal`.
      if (this.s.shorthand.has(n.type)) {
        return { ...this.step('transformation', n, `\`${n.text}\` copied into ${this.ownerLabel(n, n.text)}`), hop: n.parent?.parent?.childForFieldName('name')?.text === 'Self' ? { name: n.text, scope: null, origin: n } : undefined };
      }
      // `@options.max_rounds` on a click command: the shared option applied to the function, which
      // receives the parsed value as its parameter of that name.
      if (n.type === 'decorator' && !pendingCall) {
        const fn = n.parent?.type === 'decorated_definition' ? n.parent.childForFieldName('definition')?.childForFieldName('name')?.text : null;
        return this.step('carrier', n, `\`${snippet(n.text, 60)}\` applies the option to \`${fn ?? 'the function'}\`, which receives its value`);
      }
      const call = this.s.calls[n.type];
      // `Some(runs)` wraps the value where it stands; the statement around it decides the role.
      if (call && !pendingCall && !(this.family === 'rust' && isTupleConstructor(n))) {
        const args = n.childForFieldName(call[1]);
        if (args && within(prev, args)) {
          const bound = flagDestination(this.family, n);
          if (bound) return this.producers.flagBindingVerdict(n, bound, start);
          if (this.producers.producesValue(n)) return this.producers.producerVerdict(n);
          const configuring = this.configuringCall(n);
          if (configuring) return configuring;
          // `a.or(b)` combines `b` with `a`; the statement around it decides the role.
          if (!DEFAULTING_CALL.test(calleeName(n, call[0]))) pendingCall = n;
        } else if (actsOnReceiver(n, call[0], prev)) {
          return this.step('consumer', n, `\`${snippet(n.text, 60)}\` acts on the value`);
        }
      }
      // `return layout(opts.width)` returns what the callee made of the value, not the value.
      if ((this.s.returns.has(n.type) || (this.family === 'rust' && isTailExpression(n))) && !pendingCall) {
        const fn = enclosingFunctionName(this.family, n);
        const returnedFrom = enclosingFunction(this.family, n) ?? undefined;
        if (combinesSources(this.s, n)) return { ...this.step('precedence', n, `\`${fn ?? 'module'}\` returns \`${snippet(n.text, 80)}\`, which combines sources`), returnedFrom };
        return { ...this.step('transformation', n, `\`${snippet(referenceText(start), 60)}\` returned from \`${fn ?? 'module'}\``), returnedFrom };
      }
    }
    if (pendingCall) {
      const callee = calleeName(pendingCall, this.s.calls[pendingCall.type]![0]);
      // `return load(path)`: what the callee makes of the value is also what this function returns.
      // (Go returns an expression_list: `return parser.Parse(str)`.)
      const holder = pendingCall.parent?.type === 'expression_list' ? pendingCall.parent.parent : pendingCall.parent;
      const returned = holder && (this.s.returns.has(holder.type) || (this.family === 'rust' && isTailExpression(pendingCall)));
      return {
        ...this.step('transformation', pendingCall, `\`${snippet(referenceText(start), 60)}\` passed to \`${callee}\``),
        passedTo: callee,
        // An option's name (`args.includes('--x')`, `exclude(args, '--x')`) is looked up, not a value to follow.
        ...(!this.s.strings.has(start.type)
          ? { argumentCall: pendingCall, resultHop: resultBinding ? this.resultHop(resultBinding) : undefined, returnedFrom: returned ? (enclosingFunction(this.family, pendingCall) ?? undefined) : undefined }
          : {}),
      };
    }
    if (this.s.strings.has(start.type)) {
      // An option's name standing alone (returned by `name_long`, listed in a table) declares it.
      const where = enclosingFunctionName(this.family, start);
      return this.step('producer', start, `option name \`${snippet(stringContent(start), 40)}\` declared${where ? ` in \`${where}\`` : ''}`);
    }
    return { kind: 'unaccounted' };
  }

  /** `expanded, err := homedir.Expand(o.path)`: the result (first target) carries what the call made of the value. */
  private resultHop(n: SyntaxNode): Hop | undefined {
    const binding = this.s.bindings[n.type]!;
    const target = single(n.childForFieldName(binding[0]), n.childForFieldName(binding[1]));
    return target ? hopTo(this.family, this.spellings, target, n) : undefined;
  }

  /** A type or function named after the carrier: the option's own definition, or an accessor that carries it. */
  private definitionNamed(leaf: SyntaxNode): Verdict | null {
    const parent = leaf.parent;
    if (!parent) return null;
    const isName = parent.childForFieldName('name')?.equals(leaf) === true;
    if (isName && (parent.type in this.s.records || parent.type === 'type_spec')) {
      return { kind: 'step', role: 'producer', node: parent, symbol: leaf.text, description: `type \`${leaf.text}\` defines the option` };
    }
    if (parent.type === 'impl_item' && parent.childForFieldName('type')?.equals(leaf) === true) {
      const head = leaf.text;
      return { kind: 'step', role: 'producer', node: parent, symbol: head, description: `\`impl\` for \`${head}\` defines the option's behaviour` };
    }
    if (isName && (this.s.functions.has(parent.type) || parent.type === 'method_definition')) {
      const body = parent.childForFieldName('body');
      return { kind: 'step', role: 'carrier', node: parent, until: body ?? undefined, symbol: leaf.text, description: `accessor \`${leaf.text}\` carries the value` };
    }
    return null;
  }

  /**
   * `builder.hidden(x)`, `.max_depth(config.max_depth)`: a method named after
   * the carrier configures another object's behaviour with the value, which is
   * where the value takes effect.
   */
  private setterCall(leaf: SyntaxNode): Verdict | null {
    const member = leaf.parent;
    const call = member?.parent;
    if (!member || !call || !MEMBER_TYPES.has(member.type) || !(call.type in this.s.calls)) return null;
    const [calleeField] = this.s.calls[call.type]!;
    if (!call.childForFieldName(calleeField)?.equals(member) || member.lastNamedChild?.equals(leaf) !== true) return null;
    return this.configuringCall(call);
  }

  /** The call when its method is named after the carrier (`.max_depth(…)`), else null. */
  private configuringCall(call: SyntaxNode): Verdict | null {
    const [calleeField, argsField] = this.s.calls[call.type]!;
    const member = call.childForFieldName(calleeField);
    const method = member && MEMBER_TYPES.has(member.type) ? member.lastNamedChild : null;
    if (!method || !this.spellings.mentions(method.text) || method.text !== lastName(member!)) return null;
    const args = call.childForFieldName(argsField);
    if (!args || args.namedChildCount === 0) return null;
    const receiver = snippet(rootOf(member!).text, 40);
    const fn = enclosingFunctionName(this.family, call);
    return {
      ...this.step('consumer', call, `\`.${method.text}${snippet(args.text, 60)}\` configures \`${receiver}\`${fn ? ` in \`${fn}\`` : ''}`),
      from: method,
    };
  }

  step(role: FlowRole, node: SyntaxNode, description: string): Verdict & { kind: 'step' } {
    return { kind: 'step', role, node, symbol: enclosingFunctionName(this.family, node), description };
  }

  private isParam(n: SyntaxNode, prev: SyntaxNode): boolean {
    if (this.family === 'js' && (n.type === 'shorthand_property_identifier_pattern' || n.type === 'identifier')) return isPlainParameter(n);
    if (!(n.type in this.s.params)) return false;
    if (this.family === 'python' && n.type === 'identifier') {
      return n.parent?.type === 'parameters' || n.parent?.type === 'lambda_parameters';
    }
    const name = this.paramName(n);
    return name !== null && within(prev, name);
  }

  /**
   * `def __init__(self, directory=DEFAULT_CONFIG_DIR)`, `function load(dir = DEFAULT_DIR)`: the value is what
   * the parameter holds when the caller passes nothing — a precedence — and lives on in the parameter.
   */
  private parameterDefault(n: SyntaxNode, prev: SyntaxNode): Verdict | null {
    const value = n.type in this.s.params || n.type === 'assignment_pattern' ? (n.childForFieldName('value') ?? n.childForFieldName('right')) : null;
    if (!value || !within(prev, value)) return null;
    const name = n.type === 'assignment_pattern' ? n.childForFieldName('left') : this.paramName(n);
    const fn = enclosingFunction(this.family, n);
    if (!name || name.type !== 'identifier' || !fn) return null;
    const step = this.step('precedence', n, `\`${snippet(value.text, 60)}\` is the default of parameter \`${name.text}\` of \`${enclosingFunctionName(this.family, n) ?? 'anonymous function'}\``);
    return { ...step, hop: { name: name.text, scope: fn, origin: n } };
  }

  private paramName(n: SyntaxNode): SyntaxNode | null {
    const field = this.s.params[n.type];
    if (field === null || field === undefined) return n.type === 'identifier' ? n : n.namedChildren[0] ?? null;
    return n.childForFieldName(field);
  }

  private paramVerdict(n: SyntaxNode): Verdict {
    const name = this.paramName(n)?.text ?? n.text;
    const fn = enclosingFunctionName(this.family, n);
    const node = n.type === 'identifier' ? n.parent! : n;
    const typer = this.family === 'python' ? typerParameterVerdict(node, name, fn) : null;
    if (typer) return typer;
    return this.step('carrier', node, `parameter \`${name}\` of \`${fn ?? 'anonymous function'}\` carries the value`);
  }

  private fieldVerdict(n: SyntaxNode, nameField: string, prev: SyntaxNode): Verdict {
    const name = n.childForFieldName(nameField);
    const record = enclosingRecordName(this.family, n);
    const label = record ? `${record}.${name?.text ?? '?'}` : name?.text ?? '?';
    // A Go field a parser or decoder fills by its tag is where the value enters or lands.
    const tagged = this.family === 'go' ? taggedFieldVerdict(n, label, prev, this.spellings) : null;
    if (tagged) return tagged;
    if (!name || !within(prev, name)) {
      const value = n.childForFieldName('value');
      if (value && within(prev, value)) {
        return this.fieldStep('transformation', n, `\`${snippet(value.text, 60)}\` copied into \`${label}\``);
      }
      return { kind: 'unaccounted' };
    }
    const attrs = precedingAttributes(n);
    const parsed =
      this.family === 'rust' && (attrs.some((a) => PARSER_ATTRIBUTE.test(a.text)) || recordDerivesParser(n));
    if (parsed) {
      const head = attrs[0];
      const how = attrs.find((a) => PARSER_ATTRIBUTE.test(a.text));
      return {
        kind: 'step',
        role: 'producer',
        node: n,
        from: head,
        symbol: name.text,
        description: `\`${label}\` is filled by ${how ? `\`${snippet(how.text, 60)}\`` : 'derived parsing'}`,
        carrier: { node: n, description: `\`${label}\` carries the parsed value` },
        also: parsedFallbacks(attrs, label),
      };
    }
    return this.fieldStep('carrier', n, `\`${label}\` carries the value`, recordHeader(this.family, n));
  }

  private macroVerdict(macro: SyntaxNode, start: SyntaxNode): Verdict {
    const name = macro.childForFieldName('macro')?.text ?? 'macro';
    const what = `\`${snippet(referenceText(start), 60)}\``;
    if (outputMacro(name)) return this.step('consumer', macro, `${what} is written out by \`${name}!\``);
    return this.step('transformation', macro, `${what} passed to \`${name}!\``);
  }

  private fieldStep(role: FlowRole, n: SyntaxNode, description: string, from?: SyntaxNode): Verdict {
    const name = n.childForFieldName(this.s.fields[n.type] ?? 'name');
    return { kind: 'step', role, node: n, ...(from ? { from } : {}), symbol: name?.text ?? null, description };
  }

  private attributeVerdict(attribute: SyntaxNode): Verdict {
    let next = attribute.nextNamedSibling;
    while (next && (next.type === 'attribute_item' || this.s.comments.has(next.type))) next = next.nextNamedSibling;
    if (next?.type !== 'field_declaration') return { kind: 'ignored' };
    const name = next.childForFieldName('name');
    return name ? this.fieldVerdict(next, 'name', name) : { kind: 'unaccounted' };
  }

  consumerVerdict(branch: SyntaxNode, start: SyntaxNode): Verdict {
    const node = branch.type === 'let_condition' && branch.parent ? branch.parent : branch;
    const word = branchWord(node.type);
    const fn = enclosingFunctionName(this.family, node);
    const where = fn ? ` in \`${fn}\`` : '';
    // `if (arg === '--exitcrash') { options.exitCrash = true }`: a hand-written parser recognises the
    // option by its name; what the branch assigns is where the option's value enters.
    // `case "--tac": opts.Tac = true` compares the name with the switch's subject the same way.
    const caseValue = word === 'switch' ? node.childForFieldName('value') : null;
    const named = (word === 'if' && this.comparedAsName(start)) || (caseValue !== null && this.s.strings.has(start.type) && within(start, caseValue));
    const parsed = named ? this.branchAssignment(node, true) : null;
    if (parsed) {
      const [t, v] = this.s.bindings[parsed.type]!;
      const target = parsed.childForFieldName(t);
      const value = parsed.childForFieldName(v);
      const verdict = this.step('producer', parsed, `\`${snippet(stringContent(start), 40)}\` given: \`${snippet(parsed.text, 60)}\`${where}`);
      const hop = target && value ? this.bindingHop(parsed, target, value, start) : undefined;
      return hop ? { ...verdict, hop } : verdict;
    }
    const converted = word === 'if' ? this.branchConversion(node, start, where) : null;
    // `const passes = cfg.multipass ? 10 : 1`: what the value decided lives on in `passes`.
    return { ...this.step('consumer', node, `\`${snippet(referenceText(start), 60)}\` decides the \`${word}\`${where}`), hop: derivedHop(hopToBinding(this.family, this.spellings, node)), also: converted ? [converted] : undefined };
  }

  /**
   * `if noSortFlag { opts = opts | optNoSort }`: the branch turns the value into another setting — its
   * conversion. Recorded, not followed: the target is usually a widely used name of its own.
   */
  private branchConversion(branch: SyntaxNode, start: SyntaxNode, where: string): AlsoStep | null {
    const converted = this.branchAssignment(branch);
    return converted ? { role: 'transformation', fallback: true, node: converted, description: `\`${snippet(referenceText(start), 60)}\` sets \`${snippet(converted.text, 60)}\`${where}` } : null;
  }

  /** The first assignment among the statements an `if` runs when its condition holds (not nested deeper). */
  private branchAssignment(branch: SyntaxNode, spelled = false): SyntaxNode | null {
    for (const st of this.branchStatements(branch)) {
      if (!st || this.s.comments.has(st.type)) continue;
      const inner = st.type === 'expression_statement' ? (st.namedChildren[0] ?? null) : st;
      if (inner && this.s.bindings[inner.type] && (spelled || !this.spellings.mentions(inner.text))) return inner;
    }
    return null;
  }

  private bindingVerdict(n: SyntaxNode, wholeTarget: SyntaxNode, wholeValue: SyntaxNode, wholePrev: SyntaxNode, origin: SyntaxNode): Verdict {
    // `a, b = x, y`: each target takes the value in its own position.
    const pair = pairedBinding(wholeTarget, wholeValue, origin);
    const [target, value] = pair ?? [wholeTarget, wholeValue];
    const prev = pair ? (within(origin, target) ? target : value) : wholePrev;
    const t = snippet(target.text, 60);
    const v = this.valueText(value, origin);
    if (this.family === 'python' && isClassBodyStatement(n)) {
      const record = enclosingRecordName(this.family, n);
      return { kind: 'step', role: 'carrier', node: n, symbol: t, description: `\`${record ? `${record}.` : ''}${t}\` carries the value` };
    }
    const override = overrideCondition(this.family, n);
    // Not followed on: what a choice between sources lands in (`context = hit ? render(…) : ''`) is usually a
    // widely used name of its own, and following it pulled whole unrelated flows in.
    if (combinesSources(this.s, value) && (within(prev, target) || combinesSources(this.s, this.innermostValue(prev, value)))) return this.step('precedence', n, `\`${t}\` = \`${v}\` combines sources`);
    if (within(prev, target)) {
      const verdict = this.targetVerdict(n, target, value, override, t, v);
      // `const { dryRun } = await getConfig()`: the field is read into a local of its own name, followed in its scope.
      if (DESTRUCTURED_NAMES.has(origin.type) && within(origin, target)) {
        const scope = bindingScope(this.family, n, origin.text);
        return { ...verdict, hop: { name: origin.text, scope, origin: n, global: scope === null } };
      }
      const field = this.constructorField(n, target);
      return field ? { ...verdict, carrier: { node: n, description: `\`${field}\` is established by the constructor` } } : verdict;
    }
    // `dir.rank *= factor`, `offset += indent`: the value adjusts what the target already holds, which
    // keeps its own meaning (and its other writers); following it pulled unrelated flows in, as a choice between sources does.
    // (The option's own name in the value, `args += ["--system-site-packages"]`, is passed on, not applied.)
    if (isArithmeticAssignment(n) && !this.s.strings.has(origin.type)) return this.step('consumer', n, `\`${v}\` adjusts \`${t}\``);
    // `path = os.environ['APP_CONFIG']`, `x = process.env.APP_CONFIG`: an environment read by key is where the value enters the program.
    const entering = ENV_READ.test(value.text) && (this.s.strings.has(origin.type) || isEnvironmentKey(origin));
    const verdict = this.step(entering ? 'producer' : 'transformation', n, entering ? `\`${t}\` read from \`${v}\`` : `\`${v}\` copied into \`${t}\``);
    const hop = this.bindingHop(n, target, value, origin);
    return hop ? { ...verdict, hop } : verdict;
  }

  /** The hop into the target of a binding whose value holds the occurrence: a local, a package or module variable, or a field. */
  private bindingHop(n: SyntaxNode, target: SyntaxNode, value: SyntaxNode, origin: SyntaxNode): Hop | undefined {
    const hopName = lastName(target);
    // `msg = f'cannot read {path}'`: the value became text for a message, which carries nothing on.
    if (!hopName || this.spellings.mentions(target.text) || (this.s.strings.has(value.type) && !origin.equals(value))) return undefined;
    const one = single(target, value);
    const local = one?.type === 'identifier' || one?.type === 'expression_list' || one?.type === 'pattern_list';
    const scope = local ? bindingScope(this.family, n, hopName) : null;
    return { name: hopName, scope, origin: n, global: local && scope === null };
  }

  /** The statements a branch runs when its condition holds: an `if`'s consequence, a `case`'s own statements. */
  private branchStatements(branch: SyntaxNode): readonly (SyntaxNode | null)[] {
    const value = branch.childForFieldName('value');
    // Go's block and case hold a statement_list; Python's and JavaScript's hold the statements themselves.
    const flat = (n: SyntaxNode): (SyntaxNode | null)[] => n.namedChildren.flatMap((c) => (c?.type === 'statement_list' ? c.namedChildren : [c]));
    if (value && branchWord(branch.type) === 'switch') return flat(branch).filter((c) => c !== null && !within(c, value) && !within(value, c));
    const body = branch.childForFieldName('consequence') ?? branch.childForFieldName('body');
    if (!body) return [];
    return this.s.bindings[body.type] ? [body] : flat(body);
  }

  /**
   * The option's name compared with an argument (`arg === '--delay'`, `arg in ('--delay', '-d')`), as a
   * hand-written parser does — not a lookup of the parsed value by its name (`args['--single']`).
   */
  private comparedAsName(start: SyntaxNode): boolean {
    if (!this.s.strings.has(start.type)) return false;
    let p = start.parent;
    while (p && /^(tuple|list|array|parenthesized_expression|set)$/.test(p.type)) p = p.parent;
    if (p?.type === 'comparison_operator') return true;
    return p?.type === 'binary_expression' && /^[!=]==?$/.test(p.childForFieldName('operator')?.text ?? '');
  }

  /** The condition compares with the option's own name (`arg === '--delay'`). */
  private testsOptionName(cond: SyntaxNode): boolean {
    return this.producers.optionLiteral(cond) !== null;
  }

  private targetVerdict(n: SyntaxNode, target: SyntaxNode, value: SyntaxNode, override: SyntaxNode | null, t: string, v: string): Verdict & { kind: 'step' } {
    // `limit -= indent`: the value is adjusted in place, never produced afresh.
    if (isArithmeticAssignment(n)) return this.step('transformation', n, `\`${t}\` adjusted by \`${snippet(n.text, 80)}\``);
    if (this.producers.producesValue(value)) return this.step('producer', n, `\`${t}\` produced by \`${v}\``);
    if (/pattern/.test(target.type)) return this.step('transformation', n, `\`${t}\` destructured from \`${v}\``);
    // Under a test of the option's own name the assignment is the hand-written parse: where the value enters.
    if (override && this.testsOptionName(override)) return this.step('producer', n, `\`${t}\` set from \`${v}\` when the option is given`);
    if (override) return this.step('precedence', n, `\`${t}\` overridden to \`${v}\` when \`${snippet(override.text, 60)}\``);
    if (this.spellings.mentions(value.text)) return this.step('transformation', n, `\`${v}\` copied into \`${t}\``);
    if (LITERAL.test(value.text.trim())) return this.step('precedence', n, `\`${t}\` defaults to \`${v}\``);
    return this.step('producer', n, `\`${t}\` assigned from \`${v}\``);
  }

  /**
   * JavaScript classes and Python objects rarely declare fields: `this.x = …` in
   * `constructor` (`self.x = …` in `__init__`) is where the field comes to exist.
   */
  private constructorField(n: SyntaxNode, target: SyntaxNode): string | null {
    const ctor = this.family === 'js' ? 'constructor' : this.family === 'python' ? '__init__' : null;
    const self = this.family === 'js' ? 'this' : 'self';
    const [obj, prop] = [target.childForFieldName('object'), target.childForFieldName(this.family === 'js' ? 'property' : 'attribute')];
    if (!ctor || obj?.text !== self || !prop || enclosingFunctionName(this.family, n) !== ctor) return null;
    const record = enclosingRecordName(this.family, n);
    return record ? `${record}.${prop.text}` : prop.text;
  }

  private keyedVerdict(n: SyntaxNode, key: SyntaxNode, value: SyntaxNode, prev: SyntaxNode, origin: SyntaxNode): Verdict {
    const k = snippet(key.text, 60);
    const v = this.valueText(value, origin);
    // `collect(roots, cap=args.max_items)`: a keyword argument is an argument; the callee's parameter takes it on.
    const call = n.type === 'keyword_argument' && n.parent?.type === 'argument_list' ? n.parent.parent : null;
    // When the callee is no function of the repository (a dataclass, a record type), the keyword is a field.
    if (call && within(prev, value) && call.type in this.s.calls) {
      const callee = calleeName(call, this.s.calls[call.type]![0]);
      // `add_argument(…, env="APP_TOKEN")`: the key's own name handed to a declaring call names it there.
      if (this.s.strings.has(origin.type)) return this.step('producer', n, `\`${snippet(stringContent(origin), 40)}\` named by \`${callee}\` as \`${k}\``);
      const field = this.spellings.mentions(key.text) ? undefined : { name: key.text, scope: null, origin: n };
      return { ...this.step('transformation', n, `\`${snippet(referenceText(origin), 60)}\` passed to \`${callee}\` as \`${k}\``), argumentCall: call, hop: field };
    }
    const into = this.ownerLabel(n, k);
    // `timings: { type: 'boolean', default: defaults.timings }`: what a `default` key holds applies when
    // nothing else sets the value; `default` is no field of the program's to follow.
    if (within(prev, value) && DEFAULT_KEY.test(key.text)) return this.step('precedence', n, `\`${v}\` is the declared default`);
    if (combinesSources(this.s, value)) return this.step('precedence', n, `${into} = \`${v}\` combines sources`);
    if (within(prev, key)) {
      if (this.spellings.mentions(value.text)) return this.step('transformation', n, `\`${v}\` copied into ${into}`);
      if (LITERAL.test(value.text.trim()) || NAMED_DEFAULT.test(value.text.trim())) return this.step('precedence', n, `${into} defaults to \`${v}\``);
      if (this.producers.producesValue(value)) return this.step('producer', n, `${into} produced by \`${v}\``);
      // `timings: { type: 'boolean', default: false }`: an option's record declaring its default.
      // …or built by a call given such a record (oclif's `region: Flags.string({ default: 'eu-west-1' })`).
      const record = value.type === 'call_expression' ? value.childForFieldName('arguments')?.namedChildren.find((a) => a?.type === 'object') : value;
      const declared = record?.type === 'object' ? record.namedChildren.find((p) => p?.type === 'pair' && DEFAULT_KEY.test(p.childForFieldName('key')?.text ?? '')) : null;
      const fallback = declared?.childForFieldName('value');
      const also = declared && fallback ? [{ role: 'precedence' as const, node: declared, description: `${into} defaults to \`${snippet(fallback.text, 40)}\`` }] : undefined;
      return { ...this.step('producer', n, `${into} set from \`${v}\``), also };
    }
    // `'-n': '--no-clipboard'` in an `arg` spec names another spelling of the same option.
    if (this.s.strings.has(origin.type) && this.s.strings.has(key.type) && /^-[\w-]+$/.test(stringContent(key))) {
      return this.step('producer', n, `\`${stringContent(key)}\` declared as an alias of \`${stringContent(origin)}\``);
    }
    // `{ flag: 'dry-run', type: 'boolean' }`: the option's name in a record that declares it, not a value to follow.
    if (this.s.strings.has(origin.type)) return this.step('producer', n, `\`${snippet(stringContent(origin), 40)}\` declared as ${into} of an option record`);
    const verdict = this.step('transformation', n, `\`${v}\` copied into ${into}`);
    if (this.spellings.mentions(key.text) || !/^[A-Za-z_$][\w$]*$/.test(key.text)) return verdict;
    return { ...verdict, hop: { name: key.text, scope: null, origin: n } };
  }

  /** The value as written when it fits on a line; otherwise the reference to the carrier inside it. */
  private valueText(value: SyntaxNode, origin: SyntaxNode): string {
    const oneLine = value.startPosition.row === value.endPosition.row && value.text.length <= 80;
    return oneLine || !within(origin, value) ? snippet(value.text, 80) : snippet(referenceText(origin), 80);
  }

  /** The part of `value` that holds the occurrence: the expression statement-level checks should look at. */
  private innermostValue(prev: SyntaxNode, value: SyntaxNode): SyntaxNode {
    return within(prev, value) && value.startPosition.row !== value.endPosition.row ? prev : value;
  }

  /** `Config.dry_run` for a field of a named struct literal or constructor call, else `dry_run`. */
  private ownerLabel(n: SyntaxNode, key: string): string {
    let owner: SyntaxNode | null = null;
    for (let p = n.parent; p && !owner; p = p.parent) {
      if (p.type === 'struct_expression') owner = p.childForFieldName('name');
      else if (p.type === 'composite_literal') owner = p.childForFieldName('type');
      else if (p.type === 'call' && this.family === 'python') owner = p.childForFieldName('function');
      else if (p.type === 'object' && p.parent && this.s.returns.has(p.parent.type)) {
        return `field \`${key}\` of the object returned by \`${enclosingFunctionName(this.family, p) ?? 'module'}\``;
      } else if (p.type === 'object' || this.s.containers.has(p.type)) break;
    }
    return owner ? `\`${snippet(owner.text, 40)}.${key}\`` : `\`${key}\``;
  }

}
