"""Verificările exercițiilor din capitolul 01 — „Primul torch.compile”.

Exercițiul 1 primește un backend scris de cursant. Verificarea îl pune între Dynamo și graf
(`_BackendPazit`): numără ea însăși nodurile fiecărui graf, înainte ca backend-ul să-l vadă, și
află așa, exact, ce trebuia să adauge cursantul în listă. Funcțiile compilate sunt generate la
întâmplare la fiecare rulare (alte operații, alte întreruperi, alte forme), ca un răspuns scris
fix în cod să nu treacă; fiecare e apelată de mai multe ori, cu intrări noi și cu altă formă, ca
o funcție care nu rulează graful (un rezultat calculat o singură dată, la compilare) sau o
numărare făcută la fiecare apel să nu treacă nici ea.
"""

from __future__ import annotations

import itertools
import linecache
import numbers
from collections import Counter
from typing import Any, Callable

import torch

from ..cifre import cu_substantiv, format_numar
from .baza import (
    NESCRIS,
    GresealaCursant,
    Rezultat,
    compara_tensori,
    explica_exceptie,
    generator_aleator,
    limita_timp,
    verificare,
)

__all__ = ["exercitiul_1", "exercitiul_2", "MODURI_PERMISE", "LIMITA_APEL_S", "LIMITA_EX1_S", "LIMITA_EX2_S"]

#: Cât are voie să dureze un apel al funcției compilate cu backend-ul cursantului (compilarea cu
#: tot cu rularea). Soluția are nevoie de zecimi de secundă; primul apel al lui Dynamo dintr-un
#: proces nou, de câteva secunde.
LIMITA_APEL_S = 30.0
#: Cât are voie să dureze toată verificarea exercițiului 1 (soluția: 1–3 s).
LIMITA_EX1_S = 120.0
#: Cât are voie să dureze verificarea exercițiului 2 (nu rulează cod al cursantului).
LIMITA_EX2_S = 10.0


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: un backend care numără operațiile fiecărui graf
# ---------------------------------------------------------------------------------------------

_OPERATII = ("call_function", "call_method", "call_module")
_TIPURI_NODURI = ("placeholder", "get_attr", "call_function", "call_method", "call_module", "output")
_DESCRIERE_NODURI = {
    "placeholder": "intrările (`placeholder`)",
    "get_attr": "citirile de parametri (`get_attr`)",
    "output": "ieșirea (`output`)",
    "call_function": "apelurile de funcții (`call_function`, de exemplu `torch.sin`)",
    "call_method": "metodele tensorilor (`call_method`, de exemplu `t.sum()`)",
    "call_module": "apelurile de submodule (`call_module`, de exemplu un `nn.Linear`)",
}


def _lista(numere) -> str:
    return "[" + ", ".join(format_numar(n) for n in numere) + "]"


def _copie_graf(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """O copie a grafului, făcută înainte ca backend-ul cursantului să-l vadă (și poate să-l
    schimbe): ea dă, la fiecare apel, rezultatul pe care trebuia să-l dea funcția întoarsă."""
    graf = torch.fx.Graph()
    iesire = graf.graph_copy(gm.graph, {})
    graf.output(iesire)
    return torch.fx.GraphModule(gm, graf)


def _la_fel(a: torch.Tensor, b: torch.Tensor) -> bool:
    return (
        isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and not a.is_meta and not b.is_meta
        and a.shape == b.shape and a.dtype == b.dtype and a.device == b.device and bool(torch.equal(a, b))
    )


class _BackendPazit:
    """Backend-ul cursantului, văzut de verificare. Pentru fiecare graf primit: numără tipurile de
    noduri înainte să i-l dea (numerele corecte, chiar dacă backend-ul modifică graful), păstrează
    o copie a lui, verifică ce întoarce backend-ul și, la fiecare apel al funcției întoarse,
    compară ieșirile ei cu ale copiei. Backend-ul și funcția întoarsă au fiecare limita lor de
    timp, ca mesajul să spună care dintre ele nu s-a oprit."""

    def __init__(self, backend: Callable):
        self.backend = backend
        self.noduri: list[Counter] = []  # tipurile de noduri ale fiecărui graf primit
        self.rulari = 0
        self.context = ""  # ce apel al verificării rulează acum (pentru mesaje)
        self.eroare_backend: BaseException | None = None
        self.eroare_rulare: BaseException | None = None
        self._anterioare: dict[int, tuple] = {}

    def operatii(self) -> list[int]:
        return [sum(c[t] for t in _OPERATII) for c in self.noduri]

    def __call__(self, gm: torch.fx.GraphModule, exemple_intrari):
        indice = len(self.noduri)
        self.noduri.append(Counter(nod.op for nod in gm.graph.nodes))
        copie = _copie_graf(gm)
        try:
            with limita_timp(LIMITA_APEL_S, "backend-ul tău"):
                intors = self.backend(gm, exemple_intrari)
        except GresealaCursant:
            raise
        except Exception as eroare:
            self.eroare_backend = eroare
            raise
        if intors is None:
            raise GresealaCursant(
                "Backend-ul tău întoarce None. Un backend trebuie să întoarcă o funcție care rulează "
                "graful, de exemplu `return gm.forward`."
            )
        if not callable(intors):
            raise GresealaCursant(
                f"Backend-ul tău întoarce un obiect {type(intors).__name__}, nu o funcție. Un backend trebuie "
                "să întoarcă o funcție care rulează graful, de exemplu `return gm.forward`."
            )

        def ruleaza(*argumente):
            self.rulari += 1
            with torch.no_grad():
                asteptat = copie(*argumente)
            try:
                with limita_timp(LIMITA_APEL_S, "funcția întoarsă de backend-ul tău"):
                    obtinut = intors(*argumente)
            except GresealaCursant:
                raise
            except Exception as eroare:
                self.eroare_rulare = eroare
                raise
            self._compara_iesirile(indice, obtinut, asteptat)
            return obtinut

        return ruleaza

    def _compara_iesirile(self, indice: int, obtinut, asteptat) -> None:
        context = f"{self.context}, graful {indice + 1}"
        if isinstance(asteptat, (tuple, list)):
            if not isinstance(obtinut, (tuple, list)) or len(obtinut) != len(asteptat):
                ce_ai = (
                    f"un {type(obtinut).__name__} cu {cu_substantiv(len(obtinut), 'element', 'elemente')}"
                    if isinstance(obtinut, (tuple, list)) else f"un {type(obtinut).__name__}"
                )
                raise GresealaCursant(
                    f"Funcția întoarsă de backend trebuia să dea ce dă graful, un tuplu cu "
                    f"{cu_substantiv(len(asteptat), 'ieșire', 'ieșiri')}, dar a dat "
                    f"{ce_ai} ({context}). Rulează graful neschimbat, de exemplu `return gm.forward`."
                )
            perechi = list(zip(obtinut, asteptat))
        else:
            perechi = [(obtinut, asteptat)]
        anterioare = self._anterioare.get(indice)
        cu_tensori = [
            (o, a, o_vechi, a_vechi)
            for (o, a), (o_vechi, a_vechi) in zip(perechi, anterioare or [])
            if isinstance(a, torch.Tensor)
        ]
        if cu_tensori and all(_la_fel(o, o_vechi) and not _la_fel(a, a_vechi) for o, a, o_vechi, a_vechi in cu_tensori):
            raise GresealaCursant(
                f"Cu alte intrări ({context}), funcția întoarsă de backend a dat exact rezultatul apelului "
                "anterior. Ea trebuie să ruleze graful la fiecare apel, pe intrările primite, nu să întoarcă un "
                "rezultat calculat o dată, la compilare."
            )
        for pozitie, (o, a) in enumerate(perechi, start=1):
            unde = context if len(perechi) == 1 else f"{context}, ieșirea {pozitie}"
            if isinstance(a, torch.Tensor):
                compara_tensori(o, a, unde)
            elif isinstance(o, torch.Tensor) or o != a:
                raise GresealaCursant(f"Ieșirea grafului trebuia să fie {a!r}, dar e {o!r} ({unde}).")
        self._anterioare[indice] = perechi


def _exceptia_interioara(eroare: BaseException) -> BaseException:
    """Dynamo învelește excepțiile backend-ului în BackendCompilerFailed: scoate-o pe cea reală."""
    try:
        from torch._dynamo.exc import BackendCompilerFailed
    except Exception:  # pragma: no cover - versiuni fără această clasă
        BackendCompilerFailed = ()
    if BackendCompilerFailed and isinstance(eroare, BackendCompilerFailed):
        return getattr(eroare, "inner_exception", None) or eroare.__cause__ or eroare
    return eroare


def _ruleaza(functie: Callable, argumente: tuple, pazit: _BackendPazit) -> Any:
    """Apelează `functie` (funcția compilată cu backend-ul cursantului sau backend-ul însuși) sub o
    limită de timp de rezervă (backend-ul și funcția întoarsă au limitele lor, mai mici) și spune,
    la o excepție, dacă a apărut în backend (la compilare) sau în funcția întoarsă de el (la
    rulare), cu tipul și linia ei."""
    gradient = torch.is_grad_enabled()
    try:
        with limita_timp(2 * LIMITA_APEL_S, "funcția compilată cu backend-ul tău"):
            return functie(*argumente)
    except GresealaCursant:
        raise
    except Exception as eroare:
        reala = _exceptia_interioara(eroare)
        if isinstance(reala, GresealaCursant):
            raise reala from None
        explicatie = explica_exceptie(reala)
        if explicatie == NESCRIS:
            raise GresealaCursant(NESCRIS) from None
        if reala is pazit.eroare_backend:
            unde = "La compilare, în backend-ul tău: "
        elif reala is pazit.eroare_rulare:
            unde = "La rulare, în funcția întoarsă de backend-ul tău: "
        else:
            unde = "Funcția compilată cu backend-ul tău n-a putut rula. "
        raise GresealaCursant(unde + explicatie) from None
    finally:
        torch.set_grad_enabled(gradient)


def _enumerare(parti: list[str]) -> str:
    return parti[0] if len(parti) == 1 else ", ".join(parti[:-1]) + " și " + parti[-1]


#: Numărările greșite pe care verificarea le recunoaște: ce tipuri de noduri numără fiecare.
_NUMARARI_GRESITE = tuple(
    frozenset(tipuri)
    for tipuri in (
        _TIPURI_NODURI,  # toate nodurile: len(gm.graph.nodes)
        set(_TIPURI_NODURI) - {"output"},
        set(_TIPURI_NODURI) - {"placeholder"},
        set(_TIPURI_NODURI) - {"placeholder", "output"},  # și get_attr
        set(_OPERATII) | {"placeholder"},
        {"call_function"},
        {"call_function", "call_method"},
        {"call_function", "call_module"},
        {"call_method", "call_module"},
    )
)


def _explicatie_numarare(vazute: list[int], noduri: list[Counter]) -> str | None:
    """Ce tipuri de noduri a numărat în plus sau a uitat cursantul, când numerele lui sunt exact
    cele ale uneia dintre numărările greșite obișnuite (`_NUMARARI_GRESITE`), toate cele care se
    potrivesc spun același lucru despre nodurile din aceste grafuri, iar diferențele față de
    numerele corecte nu sunt aceleași la toate grafurile (atunci ar putea fi și un „+ 1” scris
    de mână). Altfel, None."""
    asteptat = [sum(c[t] for t in _OPERATII) for c in noduri]
    if len(noduri) < 2 or len({v - a for v, a in zip(vazute, asteptat)}) < 2:
        return None
    prezente = set().union(*(set(c) for c in noduri))
    explicatii = {
        (frozenset((numarate - set(_OPERATII)) & prezente), frozenset((set(_OPERATII) - numarate) & prezente))
        for numarate in _NUMARARI_GRESITE
        if all(sum(c[t] for t in numarate) == v for c, v in zip(noduri, vazute))
    }
    explicatii.discard((frozenset(), frozenset()))
    if len(explicatii) != 1:
        return None
    in_plus, lipsa = explicatii.pop()
    parti = []
    if in_plus:
        descrieri = [_DESCRIERE_NODURI[t] for t in _TIPURI_NODURI if t in in_plus]
        parti.append(f"ai numărat și {_enumerare(descrieri)}, "
                     + ("care nu e operație" if len(descrieri) == 1 else "care nu sunt operații"))
    if lipsa:
        parti.append("n-ai numărat " + _enumerare([_DESCRIERE_NODURI[t] for t in _TIPURI_NODURI if t in lipsa]))
    text = "; ".join(parti)
    return text[0].upper() + text[1:] + "."


def _diferenta_constanta(vazute: list[int], asteptat: list[int]) -> str | None:
    """„Fiecare număr al tău e cu 1 mai mare decât cel corect”, dacă așa e (la cel puțin două grafuri)."""
    diferente = {v - a for v, a in zip(vazute, asteptat)}
    if len(asteptat) < 2 or len(diferente) != 1:
        return None
    diferenta = diferente.pop()
    return (
        f"Fiecare număr al tău e cu {format_numar(abs(diferenta))} mai "
        f"{'mare' if diferenta > 0 else 'mic'} decât cel corect."
    )


def _verifica_lista(vazute: list, pazit: _BackendPazit, nume: str, inainte: tuple[int, int] | None) -> None:
    """Compară lista cursantului cu numerele grafurilor primite până acum de backend.
    `inainte` = (lungimea listei, numărul de grafuri) după apelul anterior, deja verificat."""
    asteptat = pazit.operatii()
    numere = list(vazute)
    if numere == asteptat and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in numere):
        return
    if not numere:
        raise GresealaCursant(
            "Lista `operatii_vazute` a rămas goală: backend-ul trebuie să adauge în ea "
            "(`operatii_vazute.append(...)`) numărul de operații al fiecărui graf primit."
        )
    for pozitie, valoare in enumerate(numere, start=1):
        if isinstance(valoare, bool) or not isinstance(valoare, numbers.Integral):
            sfat = (
                " Se pare că ai adăugat chiar colecția de noduri: adaugă lungimea ei, cu `len(...)`."
                if isinstance(valoare, (list, tuple, set, dict)) else ""
            )
            raise GresealaCursant(
                f"Lista trebuie să conțină numere întregi, dar elementul {pozitie} e de tipul "
                f"{type(valoare).__name__}.{sfat}"
            )
    if inainte is not None:
        lungime_inainte, grafuri_inainte = inainte
        grafuri_noi = len(asteptat) - grafuri_inainte
        if grafuri_noi == 0 and len(numere) > lungime_inainte and numere[:lungime_inainte] == asteptat:
            raise GresealaCursant(
                f"Pentru {nume}, lista a crescut de la {format_numar(lungime_inainte)} la "
                f"{cu_substantiv(len(numere), 'număr', 'numere')} la încă un apel al funcției compilate, deși backend-ul "
                "n-a mai primit niciun graf. Adaugă numărul în backend, o singură dată pentru fiecare graf "
                "primit, nu în funcția pe care o întoarce: aceea rulează la fiecare apel."
            )
    if len(numere) != len(asteptat):
        raise GresealaCursant(
            f"Pentru {nume}, backend-ul tău a primit {cu_substantiv(len(asteptat), 'graf', 'grafuri')}, dar lista "
            f"are {cu_substantiv(len(numere), 'număr', 'numere')} ({_lista(numere)}): "
            "adaugă exact un număr pentru fiecare graf primit."
        )
    explicatie = _explicatie_numarare(numere, pazit.noduri) or _diferenta_constanta(numere, asteptat)
    raise GresealaCursant(
        f"Pentru {nume} ai numărat {_lista(numere)}, dar numerele corecte de operații sunt {_lista(asteptat)}. "
        + (explicatie + " " if explicatie else "")
        + "Operațiile sunt nodurile din `gm.graph.nodes` cu `op` în ('call_function', 'call_method', "
        "'call_module')."
    )


# --- funcțiile și modulele compilate, generate la întâmplare ---------------------------------

_UNARE = ("torch.sin({t})", "torch.cos({t})", "torch.tanh({t})", "torch.relu({t})", "torch.sigmoid({t})")
_METODE = ("{t}.abs()", "{t}.neg()", "{t}.clamp(-1.5, 1.5)", "{t}.sum(dim=-1, keepdim=True)")
_BINARE = ("{t} * {c}", "{t} + {c}", "{t} - {c}")
_contor_surse = itertools.count()


def _functie_aleatoare(rng, intreruperi: int, intrari_minime: int = 1) -> tuple[Callable, int, str]:
    """O funcție de `intrari_minime`–3 tensori, cu 1–3 operații (funcții, metode, operatori) în
    fiecare dintre cele `intreruperi` + 1 bucăți despărțite de întreruperi ale grafului. Toate
    intrările se folosesc în prima bucată, deci primul graf are mai multe intrări decât celelalte.
    Întoarce funcția, numărul de intrări și o descriere."""
    numar_intrari = rng.randint(intrari_minime, 3)
    bucati = [
        [rng.choice(_UNARE + _METODE + _BINARE) for _ in range(rng.randint(1, 3))] for _ in range(intreruperi + 1)
    ]
    rng.choice(bucati).append(rng.choice(_UNARE))
    rng.choice(bucati).append(rng.choice(_METODE))
    bucati[0] += [f"{{t}} {rng.choice('+*-')} x{i}" for i in range(1, numar_intrari)]
    linii = []
    for indice, bucata in enumerate(bucati):
        rng.shuffle(bucata)
        if indice:
            linii.append("    torch._dynamo.graph_break()")
        linii += ["    t = " + pas.format(t="t", c=rng.choice((0.5, 0.75, 1.25, 1.5, 2.0))) for pas in bucata]
    parametri = ", ".join(f"x{i}" for i in range(numar_intrari))
    sursa = f"def functie({parametri}):\n    t = x0\n" + "\n".join(linii) + "\n    return t\n"
    fisier = f"<verificare cap01: funcția {next(_contor_surse)}>"
    linecache.cache[fisier] = (len(sursa), None, sursa.splitlines(True), fisier)
    spatiu = {"torch": torch}
    exec(compile(sursa, fisier, "exec"), spatiu)
    descriere = (
        f"funcția cu {'o intrare' if numar_intrari == 1 else cu_substantiv(numar_intrari, 'intrare', 'intrări')} și "
        + ("o întrerupere a grafului" if intreruperi == 1 else f"{cu_substantiv(intreruperi, 'întrerupere', 'întreruperi')} ale grafului")
    )
    return spatiu["functie"], numar_intrari, descriere


class _ModulMic(torch.nn.Module):
    """Un modul mic, compilat prin Dynamo (care îl desface în funcții: `linear`, nu `call_module`)."""

    def __init__(self, intrare: int, iesire: int, activare: Callable):
        super().__init__()
        self.liniar = torch.nn.Linear(intrare, iesire)
        self.activare = activare

    def forward(self, x):
        y = self.activare(self.liniar(x))
        return y * y.mean(dim=-1, keepdim=True) + 1


class _ModulTrasatA(torch.nn.Module):
    """Un modul dat lui `torch.fx.symbolic_trace`, care păstrează submodulele ca noduri
    `call_module` și parametrii folosiți direct ca noduri `get_attr`. Graful lui are 1 intrare,
    1 `get_attr`, 2 `call_function`, 1 `call_method`, 2 `call_module` și întoarce un tuplu, ca
    grafurile lui Dynamo."""

    def __init__(self, intrare: int, ascuns: int, activare: torch.nn.Module):
        super().__init__()
        self.sus = torch.nn.Linear(intrare, ascuns)
        self.activare = activare
        self.scala = torch.nn.Parameter(torch.rand(ascuns) + 0.5)

    def forward(self, x):
        y = self.activare(self.sus(x)) * self.scala
        return (y - y.mean(dim=-1, keepdim=True),)

    def intrari(self, rng, lot: int) -> tuple[torch.Tensor, ...]:
        return _intrari(rng, (lot, self.sus.in_features), 1, "cpu")


class _ModulTrasatB(torch.nn.Module):
    """Al doilea modul pentru `torch.fx.symbolic_trace`, cu alte numere de noduri din fiecare fel
    (3 intrări, 2 `get_attr`, 4 `call_function`, 2 `call_method`, 3 `call_module`), ca numerele
    unei numărări greșite să arate ce fel de noduri a numărat greșit."""

    def __init__(self, intrare: int, ascuns: int, activare: torch.nn.Module):
        super().__init__()
        self.sus = torch.nn.Linear(intrare, ascuns)
        self.activare = activare
        self.jos = torch.nn.Linear(ascuns, ascuns)
        self.scala = torch.nn.Parameter(torch.rand(ascuns) + 0.5)
        self.deplasare = torch.nn.Parameter(torch.randn(ascuns))

    def forward(self, x, z, w):
        y = self.jos(self.activare(self.sus(x))) * self.scala + self.deplasare
        y = y + z * w
        return (y.clamp(-2.0, 2.0).sigmoid(),)

    def intrari(self, rng, lot: int) -> tuple[torch.Tensor, ...]:
        return _intrari(rng, (lot, self.sus.in_features), 1, "cpu") + _intrari(rng, (lot, self.jos.out_features), 2, "cpu")


def _intrari(rng, forma: tuple[int, ...], numar: int, dispozitiv: str) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(rng.randrange(2**31))
    return tuple(torch.randn(forma, generator=generator).to(dispozitiv) for _ in range(numar))


def _context(nume: str, indice: int, intrari: tuple) -> str:
    forma = "×".join(format_numar(d) for d in intrari[0].shape)
    return f"{nume}, {('primul', 'al doilea', 'al treilea')[indice]} apel, intrări {forma}"


def _verifica_prin_dynamo(backend, vazute: list, nume: str, functie: Callable, apeluri: list[tuple]) -> None:
    """Compilează `functie` cu backend-ul cursantului și o apelează cu fiecare set de intrări:
    fiecare graf trebuie să dea ce dă copia lui, rezultatul final trebuie să fie cel eager, iar
    lista, numerele grafurilor primite de backend."""
    with torch.no_grad():
        asteptate = [functie(*(t.clone() for t in intrari)) for intrari in apeluri]
    torch._dynamo.reset()
    vazute.clear()
    pazit = _BackendPazit(backend)
    compilata = torch.compile(functie, backend=pazit)
    inainte = None
    try:
        # Cu suppress_errors (pus eventual de cursant), Dynamo ar înghiți excepțiile backend-ului și
        # ar rula funcția eager, după un avertisment lung: cursantul trebuie să vadă excepția, explicată.
        with torch._dynamo.config.patch(suppress_errors=False):
            for indice, intrari in enumerate(apeluri):
                pazit.context = context = _context(nume, indice, intrari)
                rulari = pazit.rulari
                with torch.no_grad():
                    obtinut = _ruleaza(compilata, tuple(t.clone() for t in intrari), pazit)
                if pazit.rulari == rulari:
                    raise GresealaCursant(
                        f"La {context}, funcția întoarsă de backend-ul tău nu a rulat deloc: rezultatul n-a "
                        "venit din graful compilat."
                    )
                compara_tensori(obtinut, asteptate[indice], context)
                _verifica_lista(vazute, pazit, nume, inainte)
                inainte = (len(vazute), len(pazit.noduri))
    finally:
        torch._dynamo.reset()


def _verifica_direct(backend, vazute: list, nume: str, module: list[torch.nn.Module], apeluri: list[list[tuple]]) -> None:
    """Dă backend-ului, direct, grafurile lui `torch.fx.symbolic_trace` pentru fiecare modul (cu
    noduri `call_module` și `get_attr`) și rulează de două ori funcțiile întoarse (care își
    compară singure ieșirile cu grafurile). `apeluri[j]` sunt intrările modulului j, câte un set
    pentru fiecare apel."""
    vazute.clear()
    pazit = _BackendPazit(backend)
    pazit.context = f"{nume}, la compilare"
    functii = [
        _ruleaza(pazit, (torch.fx.symbolic_trace(modul), list(seturi[0])), pazit)
        for modul, seturi in zip(module, apeluri)
    ]
    inainte = None
    for indice in range(len(apeluri[0])):
        for functie, seturi in zip(functii, apeluri):
            pazit.context = _context(nume, indice, seturi[indice])
            with torch.no_grad():
                _ruleaza(functie, tuple(t.clone() for t in seturi[indice]), pazit)
        _verifica_lista(vazute, pazit, nume, inainte)
        inainte = (len(vazute), len(pazit.noduri))


def exercitiul_1(backend_numarator, operatii_vazute) -> Rezultat:
    """Verifică un backend `backend_numarator(gm, exemple_intrari)` care adaugă în lista
    `operatii_vazute` numărul de operații al fiecărui graf primit și întoarce o funcție care
    calculează la fel ca graful.

    Cazurile, alese la întâmplare la fiecare rulare: o funcție cu 1–2 întreruperi ale grafului,
    apelată de trei ori (intrări noi, apoi altă formă, care aduce o recompilare); un modul mic
    compilat prin Dynamo; două module date direct backend-ului, ca grafuri `torch.fx.symbolic_trace`
    (cu noduri `call_module` și `get_attr`); pe GPU, încă o funcție, cu tensori pe GPU."""

    def corp():
        if not callable(backend_numarator):
            raise GresealaCursant(
                f"`backend_numarator` trebuie să fie o funcție (gm, exemple_intrari), dar e "
                f"{type(backend_numarator).__name__}."
            )
        if not isinstance(operatii_vazute, list):
            raise GresealaCursant(
                f"`operatii_vazute` trebuie să fie lista în care backend-ul adaugă numerele, dar e "
                f"{type(operatii_vazute).__name__}."
            )
        rng = generator_aleator()
        # Ponderile modulelor vin din generatorul global al procesorului: el primește o sămânță din
        # `rng` (alta la fiecare rulare), iar starea lui de dinainte revine la sfârșit, neatinsă.
        with torch.random.fork_rng(devices=[]):
            torch.default_generator.manual_seed(rng.randrange(2**31))
            return _verifica_cazurile(rng)

    def _verifica_cazurile(rng):
        # 1. O funcție cu întreruperi, apelată cu intrări noi și apoi cu altă formă.
        functie, numar_intrari, nume = _functie_aleatoare(rng, rng.randint(1, 2), intrari_minime=2)
        randuri, coloane = rng.randint(2, 6), rng.randint(3, 9)
        apeluri = [
            _intrari(rng, (randuri, coloane), numar_intrari, "cpu"),
            _intrari(rng, (randuri, coloane), numar_intrari, "cpu"),
            _intrari(rng, (randuri + rng.randint(1, 4), coloane + rng.randint(1, 4)), numar_intrari, "cpu"),
        ]
        _verifica_prin_dynamo(backend_numarator, operatii_vazute, nume, functie, apeluri)

        # 2. Un modul mic, prin Dynamo (parametrii devin intrări ale grafului).
        intrare, iesire = rng.randint(3, 8), rng.randint(2, 6)
        modul = _ModulMic(intrare, iesire, rng.choice((torch.tanh, torch.sigmoid, torch.nn.functional.gelu)))
        lot = rng.randint(1, 5)
        apeluri = [_intrari(rng, (lot, intrare), 1, "cpu") for _ in range(2)]
        _verifica_prin_dynamo(backend_numarator, operatii_vazute, "modulul mic", modul, apeluri)

        # 3. Două grafuri date direct backend-ului, cu noduri call_module și get_attr.
        module = []
        for clasa in rng.sample([_ModulTrasatA, _ModulTrasatB], 2):
            activare = rng.choice((torch.nn.GELU, torch.nn.Tanh, torch.nn.ReLU))()
            module.append(clasa(rng.randint(3, 8), rng.randint(2, 6), activare))
        apeluri = []
        for modul in module:
            lot = rng.randint(1, 5)
            apeluri.append([modul.intrari(rng, lot) for _ in range(2)])
        _verifica_direct(backend_numarator, operatii_vazute, "grafurile lui `torch.fx.symbolic_trace`", module, apeluri)

        # 4. Pe GPU, o funcție cu tensori pe GPU (rezultatul trebuie să rămână acolo).
        if torch.cuda.is_available():
            functie, numar_intrari, nume = _functie_aleatoare(rng, 1)
            forma = (rng.randint(2, 6), rng.randint(3, 9))
            apeluri = [_intrari(rng, forma, numar_intrari, "cuda") for _ in range(2)]
            _verifica_prin_dynamo(backend_numarator, operatii_vazute, nume + ", pe GPU", functie, apeluri)

        return (
            "Backend-ul tău primește fiecare graf, îi numără operațiile o singură dată, la compilare, și "
            "întoarce o funcție care rulează graful neschimbat la fiecare apel — exact ce face un backend "
            "pentru `torch.compile`."
        )

    return verificare("Exercițiul 1", corp, limita_s=LIMITA_EX1_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: alege modul potrivit fiecărei situații
# ---------------------------------------------------------------------------------------------

MODURI_PERMISE = ("default", "reduce-overhead", "max-autotune", "fullgraph")

# situație → (alegerea corectă, de ce, indiciu care nu dă răspunsul)
_ASTEPTAT = {
    "a": (
        "reduce-overhead",
        "Un model mic, cu loturi de 1, pe GPU, e limitat de costul lansării sutelor de kernel-uri: "
        "CUDA Graphs (`reduce-overhead`) le capturează o dată și apoi le reia pe toate printr-un singur apel, fără reglare automată.",
        "ce domină timpul când fiecare kernel lucrează doar câteva microsecunde?",
    ),
    "b": (
        "max-autotune",
        "Când antrenezi zile întregi un model mare, dominat de produse de matrice, câteva minute de "
        "reglare automată se amortizează ușor.",
        "cine își permite o compilare lungă și ce poate câștiga din ea la produsele de matrice?",
    ),
    "c": (
        "default",
        "Când rulezi funcția doar de câteva ori, contează compilarea rapidă: modul implicit "
        "compilează cel mai repede.",
        "ce contează mai mult când funcția rulează doar de câteva ori?",
    ),
    "d": (
        "fullgraph",
        "`fullgraph=True` transformă orice întrerupere a grafului într-o eroare: testul pică "
        "imediat ce cineva introduce una.",
        "aici nu vrei viteză, ci o eroare: care opțiune din tabel face asta?",
    ),
}

# (situație, alegere greșită) → de ce nu e bună, când greșeala are o explicație anume
_CONFUZII = {
    ("a", "max-autotune"): (
        "`max-autotune` activează și el CUDA Graphs, dar adaugă minute de reglare automată, iar "
        "situația cere să scapi de costul lansării fără compilare în plus."
    ),
    ("a", "default"): (
        "Modul implicit nu folosește CUDA Graphs: fiecare kernel mic se lansează în continuare separat."
    ),
    ("b", "reduce-overhead"): (
        "`reduce-overhead` elimină costul lansării, dar un model mare cu produse de matrice mari "
        "nu e limitat de lansări, ci de calcul."
    ),
}
for _situatie in "abc":
    _CONFUZII[(_situatie, "fullgraph")] = (
        "`fullgraph=True` nu schimbă viteza: doar transformă întreruperile grafului în erori."
    )
for _mod in ("default", "reduce-overhead", "max-autotune"):
    _CONFUZII[("d", _mod)] = (
        f"Cu `{_mod}`, o întrerupere a grafului nu e o eroare: Dynamo împarte codul în mai multe grafuri și "
        "testul trece mai departe."
    )

_NEALES = ("", "...", "…")
#: Moduri adevărate ale lui `torch.compile` care nu sunt printre variantele exercițiului.
_ALTE_MODURI = ("max-autotune-no-cudagraphs", "lite")


def _normalizeaza(ales: str) -> str:
    """Formele echivalente ale unei alegeri: „Reduce_Overhead”, „mode='max-autotune'”,
    „fullgraph=True” devin „reduce-overhead”, „max-autotune”, „fullgraph”."""
    text = "".join(ales.split()).lower()
    text = text.removeprefix("mode=").strip("\"'").replace("_", "-")
    return "fullgraph" if text == "fullgraph=true" else text


def exercitiul_2(alegeri) -> Rezultat:
    """Verifică un dicționar {situație: alegere} pentru situațiile a–d din notebook."""

    def corp():
        if not isinstance(alegeri, dict):
            raise GresealaCursant(
                f"Trebuia un dicționar, de exemplu {{'a': 'default', ...}}, dar am primit {type(alegeri).__name__}."
            )
        dupa_cheie = {}
        for cheie, valoare in alegeri.items():
            normalizata = cheie.strip().strip(")").lower() if isinstance(cheie, str) else cheie
            if normalizata in _ASTEPTAT and normalizata not in dupa_cheie:
                dupa_cheie[normalizata] = valoare
        lipsa = [k for k in _ASTEPTAT if k not in dupa_cheie]
        if lipsa:
            raise GresealaCursant(
                f"Lipsesc alegeri pentru situațiile: {', '.join(lipsa)}. Cheile dicționarului sunt literele "
                "situațiilor: 'a', 'b', 'c', 'd'."
            )
        nealese = [
            k for k in _ASTEPTAT
            if dupa_cheie[k] is Ellipsis or (isinstance(dupa_cheie[k], str) and str.__str__(dupa_cheie[k]).strip() in _NEALES)
        ]
        if nealese:
            raise GresealaCursant(
                f"Încă n-ai ales pentru situațiile: {', '.join(nealese)}. Înlocuiește fiecare \"...\" cu una "
                f"dintre variantele: {', '.join(MODURI_PERMISE)}."
            )
        gresite = []
        for situatie, (corect, _, indiciu) in _ASTEPTAT.items():
            ales = dupa_cheie[situatie]
            if not isinstance(ales, str):
                raise GresealaCursant(
                    f"Pentru situația {situatie} trebuia un text, unul dintre: {', '.join(MODURI_PERMISE)}; "
                    f"ai scris {'None' if ales is None else 'un obiect ' + type(ales).__name__}."
                )
            # Literele textului, ca str obișnuit (o subclasă de str nu-și poate impune propria egalitate).
            ales = str.__str__(ales)
            mod = _normalizeaza(ales)
            if mod not in MODURI_PERMISE:
                adevarat = ", un mod al lui `torch.compile` care nu e printre variante" if mod in _ALTE_MODURI else ""
                raise GresealaCursant(
                    f"Pentru situația {situatie} ai scris {ales!r}{adevarat}; alege una dintre: "
                    f"{', '.join(MODURI_PERMISE)}."
                )
            if mod != corect:
                motiv = _CONFUZII.get((situatie, mod), f"Indiciu: {indiciu}")
                gresite.append(f"- situația {situatie}: nu {mod!r}. {motiv}")
        if gresite:
            raise GresealaCursant("Mai ai de lucru:\n" + "\n".join(gresite))
        return " ".join(f"({k}) {e}" for k, (_, e, _) in _ASTEPTAT.items())

    return verificare("Exercițiul 2", corp, limita_s=LIMITA_EX2_S)
