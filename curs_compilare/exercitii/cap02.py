"""Verificările exercițiilor din capitolul 02 — „TorchDynamo: gărzi, întreruperi ale grafului,
recompilări”.

Fiecare verificare rulează codul tău pe intrări alese la întâmplare (altele la fiecare rulare) și
verifică mecanismul, nu doar rezultatul: câte grafuri a capturat Dynamo, câte au rulat, unde s-a
întrerupt graful și de ce (motivul citit din Dynamo, nu ghicit).
"""

from __future__ import annotations

import contextlib
import io
import operator
import re
import types

import torch
from torch.overrides import TorchFunctionMode

from ..cifre import cu_substantiv, format_numar
from ..inspectie import NumaratorCompilari, categorie_intrerupere, explica
from ..inspectie import motive_recompilare as _motive_recompilare
from .baza import fara_jurnale_torch as _fara_jurnale_torch
from .baza import goleste_dynamo as _goleste_dynamo
from .baza import (
    GresealaCursant,
    Rezultat,
    _e_cod_al_cursantului,
    apeleaza,
    compara_tensori,
    cu_originalul,
    descrie_garda,
    explica_exceptie,
    generator_aleator,
    limita_timp,
    linia_cursantului,
    traduce_exceptie,
    traduce_mesaj,
    verificare,
)

__all__ = [
    "exercitiul_1",
    "exercitiul_2",
    "exercitiul_3",
    "exercitiul_4",
    "normalizeaza_cu_intreruperi",
    "FUNCTII_DE_PREZIS",
    "LIMITA_APEL_S",
    "LIMITA_VERIFICARE_S",
]

#: Cât are voie să dureze un apel al codului tău, cu tot cu compilarea: cu backend-ul „eager” al
#: verificărilor durează sub o secundă, dar o funcție pe care ai compilat-o tu cu Inductor poate
#: cere zeci de secunde pe un procesor.
LIMITA_APEL_S = 60.0
#: Cât are voie să dureze o verificare întreagă.
LIMITA_VERIFICARE_S = 240.0


# ---------------------------------------------------------------------------------------------
# Unelte comune
# ---------------------------------------------------------------------------------------------


def _enumera(elemente) -> str:
    """„4”, „4 și 8”, „4, 8 și 12”."""
    texte = [format_numar(e) if isinstance(e, (int, float)) else str(e) for e in elemente]
    if len(texte) <= 1:
        return "".join(texte)
    return ", ".join(texte[:-1]) + " și " + texte[-1]


def _loturile(marimi) -> str:
    """„lotul de 8” sau „loturile de 8, 12 și 16”."""
    return ("lotul de " if len(marimi) == 1 else "loturile de ") + _enumera(marimi)


def _text_forma(forma) -> str:
    return " × ".join(format_numar(d) for d in forma)


def _explica_eroare_dynamo(eroare: BaseException) -> str:
    """O eroare apărută când rulează o funcție compilată, spusă pe nume: o operație care eșuează
    pe forme sau tipuri, excepția aruncată de codul tău (cu tipul ei și linia) sau o întrerupere
    a grafului sub `fullgraph=True` (cu motivul citit din Dynamo)."""
    exc = getattr(torch._dynamo, "exc", None)
    text = str(eroare)
    linie = linia_cursantului(eroare)
    unde = ""
    if linie:
        unde = f" la linia {linie[0]}" + (f" (`{linie[1]}`)" if linie[1] else "")
    tip_intrerupere = getattr(eroare, "gb_type", None) or ""
    cauza = eroare.__cause__ or eroare.__context__

    # 1. O operație pe tensori eșuează (forme, tipuri): Dynamo o vede pe tensorii „fake”.
    if exc is not None and isinstance(eroare, getattr(exc, "TorchRuntimeError", ())):
        tradusa = traduce_exceptie(eroare)
        return (
            f"O operație din codul tău eșuează{unde}: {tradusa.explicatie}. PyTorch a refuzat-o: verifică formele, "
            f"tipurile și dispozitivele tensorilor.{cu_originalul(tradusa)}"
        )
    # 2. Codul tău a aruncat o excepție, pe care Dynamo a observat-o urmărindu-l.
    observata = exc is not None and isinstance(cauza, getattr(exc, "ObservedException", ()))
    if observata or tip_intrerupere == "Observed exception":
        potrivire = re.search(r"raised exception (\w+)\((.*)\)\s*$", str(cauza or ""), re.S)
        tip = potrivire.group(1) if potrivire else "o excepție"
        mesaj = potrivire.group(2).strip().strip("'\"") if potrivire else ""
        explicatie = traduce_mesaj(mesaj, tip) if mesaj else None
        return (
            f"Codul tău a aruncat {tip}{unde} când a rulat compilat"
            + (f": {explicatie}." if explicatie else ".") + cu_originalul(mesaj)
        )
    # 3. O întrerupere a grafului, transformată în eroare de `fullgraph=True`.
    if exc is not None and isinstance(eroare, getattr(exc, "Unsupported", ())):
        if "disable" in text:
            return (
                f"Ai ascuns o întrerupere cu `torch.compiler.disable`{unde}: codul exclus tot întrerupe "
                "graful (Dynamo doar nu mai încearcă să-l urmărească). Exercițiul cere să elimini "
                "întreruperile, rescriind liniile problematice cu operații pe tensori."
            )
        return (
            f"Cu `fullgraph=True`, Dynamo se oprește la o întrerupere a grafului{unde}: "
            f"{categorie_intrerupere(text)}. Elimină linia sau rescrie-o cu operații pe tensori."
            f"{cu_originalul(getattr(eroare, 'gb_type', None) or text)}"
        )
    # 4. Backend-ul a refuzat graful (de exemplu, i-ai dat opțiuni pe care nu le cunoaște).
    if exc is not None and isinstance(eroare, getattr(exc, "BackendCompilerFailed", ())):
        interioara = getattr(eroare, "inner_exception", None) or eroare.__cause__ or eroare
        tradusa = traduce_exceptie(interioara)
        sfat = ""
        if re.search(r"\b(mode|options)\b", str(interioara)):
            sfat = (
                " Când dai un backend, nu-i da lui `torch.compile` și `mode` sau `options`: acestea sunt "
                "pentru Inductor."
            )
        return f"Backend-ul a refuzat graful ({tradusa.tip}): {tradusa.explicatie}.{sfat}{cu_originalul(tradusa)}"
    # 5. Altceva (o eroare a lui Dynamo pe codul tău): tipul și mesajul.
    if linie is None:
        return explica_exceptie(eroare)
    tradusa = traduce_exceptie(eroare)
    return (
        f"Compilată, funcția ta a dus la {type(eroare).__name__}{unde}: {tradusa.explicatie}."
        f"{cu_originalul(text.split('from user code:')[0])}"
    )


def _ruleaza(functie, *argumente, ce: str, explica_eroarea=explica_exceptie):
    """Apelează codul cursantului (direct sau printr-o funcție compilată) cu limita de timp a
    capitolului, fără jurnalele PyTorch pe ecran; o excepție devine `GresealaCursant` cu
    explicația dată de `explica_eroarea`."""
    if not callable(functie):
        raise GresealaCursant(f"Trebuia o funcție, dar am primit {type(functie).__name__}.")
    gradient = torch.is_grad_enabled()
    try:
        with _fara_jurnale_torch(), limita_timp(LIMITA_APEL_S, ce):
            return functie(*argumente)
    except GresealaCursant:
        raise
    except Exception as eroare:
        raise GresealaCursant(explica_eroarea(eroare)) from None
    finally:
        torch.set_grad_enabled(gradient)


def _contoare():
    return torch._dynamo.utils.counters


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: repară trei întreruperi ale grafului
# ---------------------------------------------------------------------------------------------


def normalizeaza_cu_intreruperi(x):
    """Funcția de reparat: calculează corect, dar are trei întreruperi ale grafului."""
    media = x.mean()
    print("media:", media)  # 1: print
    if media.item() > 0:  # 2: .item() și o ramificare după valoarea unui tensor
        x = x - media
    else:
        x = x + 1.0
    maxim = max(x.abs().flatten().tolist())  # 3: tensor → listă Python
    return x / maxim


def _normalizeaza_referinta(x):
    media = x.mean()
    x = torch.where(media > 0, x - media, x + 1.0)
    return x / x.abs().max()


def _forma_aleatoare(rng, dimensiuni=(1, 3)) -> tuple[int, ...]:
    return tuple(rng.randint(2, 9) for _ in range(rng.randint(*dimensiuni)))


def _intrari_exercitiul_1(rng):
    """Patru tensori noi la fiecare rulare: media pozitivă, media negativă, media exact 0 (unde
    originalul alege ramura `else`) și unul în float64, de forme alese la întâmplare."""
    generator = torch.Generator().manual_seed(rng.randrange(2**31))
    forma = _forma_aleatoare(rng, (2, 3))
    pozitiv = torch.randn(forma, generator=generator) + rng.uniform(1.0, 3.0)
    forma_neg = _forma_aleatoare(rng)
    negativ = torch.randn(forma_neg, generator=generator) - rng.uniform(1.0, 3.0)
    # Un element mult sub celelalte: după ramura `else` (x + 1), cel mai mare în valoare absolută
    # e negativ, deci `x.max()` și `x.abs().max()` diferă mereu (altfel, o variantă fără `abs` ar
    # trece uneori, când întâmplarea le face egale).
    negativ.view(-1)[rng.randrange(negativ.numel())] = -rng.uniform(8.0, 12.0)
    # Media exact 0: numere întregi mici și opusele lor (suma lor e exactă în float32).
    jumatate = rng.randint(3, 12)
    valori = torch.randint(1, 6, (jumatate,), generator=generator).float()
    valori = valori * (torch.randint(0, 2, (jumatate,), generator=generator).float() * 2 - 1)
    zero = torch.cat([valori, -valori])[torch.randperm(2 * jumatate, generator=generator)].reshape(2, jumatate)
    forma_64 = _forma_aleatoare(rng)
    semn = rng.choice((-1.0, 1.0))
    dublu = torch.randn(forma_64, dtype=torch.float64, generator=generator) + semn * rng.uniform(0.5, 2.0)
    return [
        (f"un tensor {_text_forma(forma)} cu media pozitivă", pozitiv),
        (f"un tensor {_text_forma(forma_neg)} cu media negativă", negativ),
        (f"un tensor {_text_forma(zero.shape)} cu media exact 0", zero),
        (f"un tensor float64 {_text_forma(forma_64)} cu media {'pozitivă' if dublu.mean() > 0 else 'negativă'}", dublu),
    ]


#: Operațiile care ies din lumea tensorilor (și deci întrerup graful), după numele lor în
#: `__torch_function__`.
_IESIRI_DIN_TENSORI = {
    "item": "`.item()` (tensor → număr Python)",
    "tolist": "`.tolist()` (tensor → listă Python)",
    "__bool__": "un `if` (sau `and`, `or`, `bool()`) după valoarea unui tensor",
    "__float__": "`float()` pe un tensor",
    "__int__": "`int()` pe un tensor",
    "__index__": "un tensor folosit ca număr întreg Python",
    "numpy": "`.numpy()` (tensor → tablou NumPy)",
}


class _Spion(TorchFunctionMode):
    """Notează operațiile care ies din lumea tensorilor, cât timp rulează codul cursantului."""

    def __init__(self):
        super().__init__()
        self.vazute: list[str] = []

    def __torch_function__(self, func, types_, args=(), kwargs=None):
        nume = getattr(func, "__name__", "")
        if nume in _IESIRI_DIN_TENSORI and nume not in self.vazute:
            self.vazute.append(nume)
        return func(*args, **(kwargs or {}))


_NUME_RAMIFICARE = ("is_compiling", "is_dynamo_compiling", "is_exporting")


def _ramifica_pe_compilare(functie) -> bool:
    """Adevărat dacă funcția (sau o funcție definită în ea) citește `torch.compiler.is_compiling()`
    sau una dintre rudele ei, direct sau printr-un alt nume."""
    while not _e_cod_al_cursantului(getattr(getattr(functie, "__code__", None), "co_filename", "<>")):
        functie = getattr(functie, "__wrapped__", None)  # un decorator (torch.compiler.disable, functools.wraps)
        if functie is None:
            return False
    globale = getattr(functie, "__globals__", {}) or {}
    celule = [c.cell_contents for c in (getattr(functie, "__closure__", None) or ()) if _are_continut(c)]
    if any(getattr(o, "__name__", "") in _NUME_RAMIFICARE for o in celule):
        return True
    coduri, vazute = [getattr(functie, "__code__", None)], set()
    while coduri:
        cod = coduri.pop()
        if cod is None or id(cod) in vazute or not _e_cod_al_cursantului(cod.co_filename):
            continue
        vazute.add(id(cod))
        for nume in cod.co_names:
            if any(n in nume for n in _NUME_RAMIFICARE):
                return True
            if getattr(globale.get(nume), "__name__", "") in _NUME_RAMIFICARE:
                return True
        coduri.extend(c for c in cod.co_consts if isinstance(c, types.CodeType))
    return False


def _are_continut(celula) -> bool:
    try:
        celula.cell_contents
    except ValueError:
        return False
    return True


def _ruleaza_eager_cu_spion(functie, x, descriere):
    """Rulează funcția cursantului fără compilare și întoarce (rezultat, ce a tipărit, operațiile
    care ies din lumea tensorilor)."""
    spion, iesire = _Spion(), io.StringIO()
    with contextlib.redirect_stdout(iesire), spion:
        rezultat = apeleaza(functie, x, limita_s=LIMITA_APEL_S, ce=f"funcția ta (pe {descriere})")
    return rezultat, iesire.getvalue(), spion.vazute


def _mesaj_iesiri(functie, a_tiparit: bool, iesiri: list[str], descriere: str) -> str:
    ce_face = ["tipărește cu `print`"] if a_tiparit else []
    if iesiri:
        ce_face.append("folosește " + _enumera(_IESIRI_DIN_TENSORI[n] for n in iesiri))
    lista = " și ".join(ce_face)
    if _ramifica_pe_compilare(functie):
        return (
            "Funcția ta se ramifică după `torch.compiler.is_compiling()`: compilată, ocolește liniile "
            f"problematice, dar rulată normal (pe {descriere}) tot {lista}. Ai ascuns "
            "întreruperile de Dynamo, nu le-ai eliminat: scrie un singur drum, numai cu operații pe tensori."
        )
    return (
        f"Rezultatul e corect, dar funcția ta (pe {descriere}) tot {lista}. Așa iese din lumea "
        "tensorilor, deci întrerupe graful într-o compilare obișnuită. Rescrie acele linii cu "
        "operații pe tensori (`torch.where`, `x.abs().max()`)."
    )


def exercitiul_1(normalizeaza_fara_intreruperi) -> Rezultat:
    """Verifică o variantă fără întreruperi pe patru tensori noi la fiecare rulare (media pozitivă,
    negativă, exact 0, float64): rulată normal, dă rezultatul originalului fără `print`, `.item()`,
    `.tolist()` sau `if` după valoarea unui tensor; compilată cu `fullgraph=True`, rulează un
    singur graf la fiecare apel și dă același rezultat."""

    def corp():
        cazuri = _intrari_exercitiul_1(generator_aleator())
        # 1. Rulată normal: corectă și fără ieșiri din lumea tensorilor (nici pe drumul eager).
        for descriere, x in cazuri:
            obtinut, tiparit, iesiri = _ruleaza_eager_cu_spion(normalizeaza_fara_intreruperi, x.clone(), descriere)
            compara_tensori(obtinut, _normalizeaza_referinta(x), f"rulată normal, pe {descriere}")
            if tiparit or iesiri:
                raise GresealaCursant(_mesaj_iesiri(normalizeaza_fara_intreruperi, bool(tiparit), iesiri, descriere))
        # 2. Compilată cu fullgraph=True: un singur graf, care chiar rulează la fiecare apel.
        _goleste_dynamo()
        numarator = NumaratorCompilari()
        try:
            compilata = torch.compile(normalizeaza_fara_intreruperi, fullgraph=True, backend=numarator)
            for descriere, x in cazuri:
                rulari = numarator.rulari
                iesire = io.StringIO()
                with contextlib.redirect_stdout(iesire):
                    obtinut = _ruleaza(compilata, x.clone(), ce=f"funcția ta compilată (pe {descriere})",
                                       explica_eroarea=_explica_eroare_dynamo)
                compara_tensori(obtinut, _normalizeaza_referinta(x), f"compilată, pe {descriere}")
                if iesire.getvalue():
                    raise GresealaCursant(
                        f"Compilată, funcția ta tot tipărește ceva (pe {descriere}): un `print` rămas în graf "
                        "rulează ca efect în afara lui. Scoate-l."
                    )
                if numarator.rulari == rulari:
                    raise GresealaCursant(
                        f"Compilată, funcția ta n-a rulat niciun graf pe {descriere}: a rulat în modul eager "
                        "(de exemplu, exclusă cu `torch.compiler.disable`). Exercițiul cere exact un graf, nu zero."
                    )
        finally:
            _goleste_dynamo()
        return (
            "Un singur graf la fiecare apel, aceleași rezultate ca originalul pe ambele ramuri (și la media "
            "exact 0). `torch.where` a înlocuit ramificarea, iar maximul a rămas tensor."
        )

    return verificare("Exercițiul 1", corp, limita_s=LIMITA_VERIFICARE_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: prezice grafurile și întreruperile
# ---------------------------------------------------------------------------------------------


def functia_A(x):
    y = torch.sin(x)
    y = y * 2
    return torch.cos(y)


def functia_B(x):
    y = torch.sin(x)
    print("pasul 1")
    z = torch.cos(y)
    print("pasul 2")
    return z + 1


def functia_C(x):
    for _ in range(3):
        x = torch.sin(x)
    if x.sum() > 0:
        return torch.cos(x)
    return torch.exp(x)


@torch.compiler.disable
def _jurnalizeaza(t):
    return t


def functia_D(x):
    y = torch.sin(x)
    if x.shape[0] > 2:
        y = y * 2
    y = _jurnalizeaza(y)
    return torch.cos(y)


FUNCTII_DE_PREZIS = {"A": functia_A, "B": functia_B, "C": functia_C, "D": functia_D}

# Indiciile, după direcția greșelii: ai numărat întreruperi care nu există sau ai scăpat una.
_PREA_MULTE_INTRERUPERI = {
    "A": "Toate liniile sunt operații pe tensori: nimic nu întrerupe graful.",
    "B": "Doar cele două `print`-uri întrerup graful; operațiile pe tensori nu.",
    "C": "Bucla `range(3)` e pur Python: Dynamo o desfășoară, fără întreruperi. Doar `if x.sum() > 0` "
    "întrerupe graful.",
    "D": "Un `if` după formă (`x.shape[0]`) nu întrerupe graful: forma e cunoscută, iar Dynamo pune o gardă "
    "pe ea.",
}
_PREA_PUTINE_INTRERUPERI = {
    "A": "Numără din nou: Dynamo găsește o întrerupere aici.",
    "B": "Fiecare `print` întrerupe graful: două `print`-uri, două întreruperi.",
    "C": "`if x.sum() > 0` depinde de valoarea unui tensor, pe care Dynamo n-o știe când construiește "
    "graful: acolo graful se întrerupe.",
    "D": "Funcția exclusă cu `torch.compiler.disable` întrerupe graful: Dynamo nu intră în ea.",
}
_GRAFURI = (
    "Întreruperile sunt bine numărate, dar nu și grafurile: după fiecare întrerupere urmată de operații "
    "pe tensori începe un graf nou."
)


def _pereche(valoare, nume):
    """Predicția pentru o funcție, ca pereche de întregi (acceptă și întregii NumPy)."""
    if valoare is None:
        raise GresealaCursant(f"Pentru funcția {nume} ai scris None: trebuia o pereche (grafuri, întreruperi).")
    if not isinstance(valoare, (tuple, list)) or len(valoare) != 2:
        raise GresealaCursant(
            f"Pentru funcția {nume} trebuia o pereche (grafuri, întreruperi), de exemplu (1, 0); ai scris {valoare!r}."
        )
    if any(v is Ellipsis for v in valoare):
        raise GresealaCursant(f"Încă n-ai completat predicția pentru funcția {nume}: înlocuiește `...` cu numere.")
    numere = []
    for v in valoare:
        try:
            if isinstance(v, bool) or type(v).__name__ in ("bool_", "bool"):
                raise TypeError
            numere.append(operator.index(v))
        except Exception:
            raise GresealaCursant(
                f"Pentru funcția {nume}, ambele numere trebuie să fie întregi: ai scris {valoare!r}."
            ) from None
    if any(n < 0 for n in numere):
        raise GresealaCursant(f"Pentru funcția {nume} ai scris un număr negativ: {valoare!r}.")
    return tuple(numere)


def _indiciu_2(nume, prezis, real) -> str:
    (pg, pi), (_, ri) = prezis, real
    if pi > ri:
        indiciu = _PREA_MULTE_INTRERUPERI[nume]
    elif pi < ri:
        indiciu = _PREA_PUTINE_INTRERUPERI[nume]
    elif ri == 0:
        indiciu = "Fără întreruperi, toate operațiile intră într-un singur graf."
    else:
        indiciu = _GRAFURI
    return f"{nume}: ai prezis ({format_numar(pg)}, {format_numar(pi)}). {indiciu}"


_ADEVAR_2: dict[str, tuple[int, int]] = {}


def _adevarul_2() -> dict[str, tuple[int, int]]:
    """(grafuri, întreruperi) pentru fiecare funcție, aflate cu `torch._dynamo.explain` pe
    versiunea instalată (o dată pe sesiune: nu depind de intrare, cât timp are prima dimensiune
    mai mare ca 2)."""
    if not _ADEVAR_2:
        x = torch.randn(4, 3)
        try:
            for nume, functie in FUNCTII_DE_PREZIS.items():
                with _fara_jurnale_torch(), contextlib.redirect_stdout(io.StringIO()):
                    explicatie = explica(functie, x)
                _ADEVAR_2[nume] = (explicatie.numar_grafuri, explicatie.numar_intreruperi)
        except BaseException:
            _ADEVAR_2.clear()
            raise
        finally:
            torch._dynamo.reset()
    return dict(_ADEVAR_2)


def exercitiul_2(predictii) -> Rezultat:
    """Compară predicțiile {nume: (grafuri, întreruperi)} cu ce găsește `torch._dynamo.explain`."""

    def corp():
        if predictii is None:
            raise GresealaCursant("Ai dat None: trebuia un dicționar {'A': (grafuri, întreruperi), ...}.")
        if not isinstance(predictii, dict):
            raise GresealaCursant(
                f"Trebuia un dicționar {{'A': (grafuri, întreruperi), ...}}, dar am primit {type(predictii).__name__}."
            )
        lipsa = [n for n in FUNCTII_DE_PREZIS if n not in predictii]
        if lipsa:
            raise GresealaCursant(f"Lipsesc predicțiile pentru funcțiile: {', '.join(lipsa)}.")
        if all(
            isinstance(predictii[n], (tuple, list)) and any(v is Ellipsis for v in predictii[n])
            for n in FUNCTII_DE_PREZIS
        ):
            raise GresealaCursant("Încă n-ai completat predicțiile: înlocuiește fiecare `...` cu un număr.")
        prezise = {nume: _pereche(predictii[nume], nume) for nume in FUNCTII_DE_PREZIS}
        adevar = _adevarul_2()
        gresite = [_indiciu_2(nume, prezise[nume], adevar[nume]) for nume in FUNCTII_DE_PREZIS
                   if prezise[nume] != adevar[nume]]
        if gresite:
            raise GresealaCursant(
                "Predicțiile nu se potrivesc cu ce face Dynamo pentru:\n" + "\n".join(gresite)
            )
        return "Ai citit codul ca Dynamo: știi ce linii întrerup graful și care nu."

    return verificare("Exercițiul 2", corp, limita_s=LIMITA_VERIFICARE_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 3: loturi de mărimi diferite, o singură compilare
# ---------------------------------------------------------------------------------------------

#: Câte mărimi de lot încearcă verificarea (alese la întâmplare, fiecare de cel puțin 2).
NUMAR_LOTURI = 5


def _strat_aleator(rng):
    """Funcția de compilat, cu un coeficient nou la fiecare rulare (o funcție scrisă de mână în
    locul celei primite nu dă aceleași valori)."""
    coeficient = round(rng.choice((-1.0, 1.0)) * rng.uniform(0.5, 1.5), 3)

    def strat_de_test(x):
        return (torch.sin(x) * coeficient + x).sum(dim=-1)

    return strat_de_test


def _e_dinamic(gm: torch.fx.GraphModule) -> bool:
    """Adevărat dacă graful are forme simbolice (valabil pentru mai multe mărimi)."""
    for nod in gm.graph.nodes:
        if nod.op != "placeholder":
            continue
        valoare = nod.meta.get("example_value")
        if isinstance(valoare, torch.SymInt):
            return True
        if isinstance(valoare, torch.Tensor) and any(isinstance(d, torch.SymInt) for d in valoare.shape):
            return True
    return False


def _forme_3(rng) -> tuple[list[int], int]:
    """Mărimile loturilor (distincte, de la 2 la 64) și numărul de caracteristici (3–9). Niciun lot nu
    are chiar atâtea rânduri câte caracteristici: cu `dynamic=True`, la o formă pătrată Dynamo ar
    presupune că cele două dimensiuni rămân egale (*duck sizing*) și ar recompila la lotul următor,
    deci un răspuns corect ar fi respins din întâmplare."""
    caracteristici = rng.randint(3, 9)
    marimi = rng.sample([m for m in range(2, 65) if m != caracteristici], NUMAR_LOTURI)
    return marimi, caracteristici


def exercitiul_3(compileaza_pentru_loturi) -> Rezultat:
    """Verifică `compileaza_pentru_loturi(functie, backend)` pe cinci mărimi de lot noi la fiecare
    rulare: rezultatele corecte, o singură compilare, fără întreruperi, și graful compilat chiar
    rulat la fiecare lot (nu doar la primul)."""

    def corp():
        rng = generator_aleator()
        strat = _strat_aleator(rng)
        marimi, caracteristici = _forme_3(rng)
        generator = torch.Generator().manual_seed(rng.randrange(2**31))
        _goleste_dynamo()
        numarator = NumaratorCompilari()
        apeluri = []
        try:
            compilata = _ruleaza(compileaza_pentru_loturi, strat, numarator,
                                 ce="funcția ta `compileaza_pentru_loturi`")
            if compilata is None:
                raise GresealaCursant("`compileaza_pentru_loturi` a întors None: ai uitat `return`?")
            if not callable(compilata):
                raise GresealaCursant(
                    f"`compileaza_pentru_loturi` trebuie să întoarcă funcția compilată, nu {type(compilata).__name__}."
                )
            for marime in marimi:
                x = torch.randn(marime, caracteristici, generator=generator)
                rulari, compilari = numarator.rulari, numarator.compilari
                obtinut = _ruleaza(compilata, x.clone(), ce=f"funcția compilată (pe lotul de {format_numar(marime)})",
                                   explica_eroarea=_explica_eroare_dynamo)
                compara_tensori(obtinut, strat(x), f"lotul de {format_numar(marime)}")
                apeluri.append((marime, numarator.rulari - rulari, numarator.compilari - compilari))
            intreruperi = list(_contoare()["graph_break"])
            motive = _motive_recompilare()
        finally:
            _goleste_dynamo()

        if numarator.compilari == 0:
            raise GresealaCursant(
                "N-a trecut nicio compilare prin backend-ul primit: dă-l lui `torch.compile(functie, "
                "backend=backend, ...)` și nu exclude funcția de la compilare."
            )
        if intreruperi or any(r > 1 for _, r, _ in apeluri):
            motiv = intreruperi[0] if intreruperi else ""
            cauza = f" ({categorie_intrerupere(motiv)})" if motiv else ""
            raise GresealaCursant(
                f"Graful se întrerupe{cauza}: Dynamo îl împarte în bucăți și revine în Python între ele, la "
                "fiecare apel. Compilează `functie` așa cum e, fără cod în jurul ei pe care Dynamo nu-l "
                f"poate urmări.{cu_originalul(motiv)}"
            )
        eager = [m for m, r, _ in apeluri if r == 0]
        if eager:
            raise GresealaCursant(
                f"La {_loturile(eager)}, graful compilat n-a rulat deloc: funcția întoarsă a rulat codul în modul eager, pe lângă "
                "`torch.compile`. Ea trebuie să treacă prin funcția compilată la fiecare apel, pentru orice lot."
            )
        recompilate = [m for i, (m, _, c) in enumerate(apeluri) if i > 0 and c > 0]
        if recompilate:
            grafuri = numarator.grafuri
            total = cu_substantiv(numarator.compilari, "compilare", "compilări")
            if not any(_e_dinamic(g) for g in grafuri):
                raise GresealaCursant(
                    f"Au fost {total} pentru {cu_substantiv(len(marimi), 'lot', 'loturi')}: fiecare graf e "
                    "specializat pe forma exactă (ca la `dynamic=False`), deci fiecare lot nou încalcă garda pe "
                    "formă. Cere forme dinamice pentru prima dimensiune."
                )
            if not _e_dinamic(grafuri[0]) and all(_e_dinamic(g) for g in grafuri[1:]):
                raise GresealaCursant(
                    f"Au fost {total}: prima pentru forma exactă a lotului de {format_numar(marimi[0])}, a doua la "
                    f"lotul de {format_numar(recompilate[0])}, când garda pe formă a căzut și Dynamo a recompilat "
                    "cu forme dinamice. Așa se comportă `torch.compile` cu valoarea implicită, `dynamic=None`. "
                    "Cere formele dinamice de la început: "
                    "`dynamic=True` sau `torch._dynamo.mark_dynamic(x, 0)` înainte de primul apel."
                )
            motiv = (
                f" Garda căzută: {descrie_garda(motive[0])}." if motive else
                " Nicio gardă n-a căzut: compilarea a luat-o de la zero, pentru că cache-ul lui Dynamo a fost "
                "golit (de exemplu cu `torch._dynamo.reset()`)."
            )
            raise GresealaCursant(
                f"Au fost {total}: funcția s-a recompilat la {_loturile(recompilate)}.{motiv}"
            )
        return (
            f"O singură compilare, iar graful compilat a rulat la toate cele {cu_substantiv(len(marimi), 'lot', 'loturi')} "
            f"({_enumera(marimi)}): e valabil pentru orice valoare de cel puțin 2 a primei dimensiuni (0 și 1 "
            "rămân specializate: un lot de 1 ar recompila)."
        )

    return verificare("Exercițiul 3", corp, limita_s=LIMITA_VERIFICARE_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 4: detectează o recompilare
# ---------------------------------------------------------------------------------------------


def _dublare(t):
    return t * 2 + 1


def _cazuri_exercitiul_4(rng):
    """Cazurile, cu mărimi noi la fiecare rulare și într-o ordine nouă. Fiecare are o cheie după
    care se ține minte răspunsul adevărat (același pentru orice mărimi de cel puțin 2)."""
    f32, f64 = torch.float32, torch.float64
    a, b, c = rng.sample(range(2, 65), 3)
    cazuri = [
        ("aceeași formă de mai multe ori", {}, [((a,), f32)] * rng.randint(2, 4)),
        ("forme diferite, dynamic=False", {"dynamic": False}, [((a,), f32), ((b,), f32)]),
        ("forme diferite, dynamic=True", {"dynamic": True}, [((a,), f32), ((b,), f32), ((c,), f32)]),
        ("forme diferite, dynamic implicit", {}, [((a,), f32), ((b,), f32)]),
        ("aceeași formă, apoi alta abia la ultimul apel", {}, [((a,), f32)] * rng.randint(2, 3) + [((b,), f32)]),
        ("alt tip de date, aceeași formă", {"dynamic": True}, [((a,), f32), ((a,), f64)]),
        ("forme diferite, apoi un lot de 1, dynamic=True", {"dynamic": True}, [((a,), f32), ((b,), f32), ((1,), f32)]),
    ]
    rng.shuffle(cazuri)
    return cazuri


_ADEVAR_4: dict[tuple, int | None] = {}


def _prima_recompilare(descriere, optiuni, tensori) -> int | None:
    """Indicele primului apel care recompilează (None dacă niciunul), aflat rulând Dynamo."""
    cheie = (descriere, len(tensori))
    if cheie not in _ADEVAR_4:
        _goleste_dynamo()
        numarator = NumaratorCompilari()
        compilata = torch.compile(_dublare, backend=numarator, **optiuni)
        prima = None
        with _fara_jurnale_torch():
            for i, t in enumerate(tensori):
                inainte = numarator.compilari
                compilata(t)
                if i > 0 and numarator.compilari > inainte and prima is None:
                    prima = i
        _goleste_dynamo()
        _ADEVAR_4[cheie] = prima
    return _ADEVAR_4[cheie]


def _atitudinea_a_ramas_activa() -> bool:
    """Adevărat dacă a rămas activă o atitudine („stance”) alta decât cea implicită."""
    atitudine = getattr(getattr(torch._dynamo, "eval_frame", None), "_stance", None)
    if getattr(atitudine, "stance", None) is not None:
        return atitudine.stance != "default"
    # Altfel (o versiune fără `_stance`): o încercare, cu o recompilare.
    torch._dynamo.reset()
    proba = torch.compile(lambda t: t + 1, backend="eager")
    try:
        with _fara_jurnale_torch():
            proba(torch.randn(3))
            proba(torch.randn(3, 2))
    except RuntimeError:
        return True
    finally:
        torch._dynamo.reset()
    return False


def _e_semnal_de_recompilare(eroare: BaseException) -> bool:
    """Excepția pe care o aruncă PyTorch la o recompilare interzisă (atitudinea
    „fail_on_recompile” sau `error_on_recompile`)."""
    exc = getattr(torch._dynamo, "exc", None)
    if exc is not None and isinstance(eroare, getattr(exc, "RecompileError", ())):
        return True
    return isinstance(eroare, RuntimeError) and "fail_on_recompile" in str(eroare)


def _explica_4(descriere):
    def explica_eroarea(eroare):
        if _e_semnal_de_recompilare(eroare):
            return (
                f"Pentru cazul „{descriere}” ai detectat recompilarea, dar excepția a scăpat din funcția ta. "
                "Prinde-o (`try` / `except RuntimeError`) și întoarce True."
            )
        return explica_exceptie(eroare)

    return explica_eroarea


def _e_bool(valoare) -> bool:
    return isinstance(valoare, bool) or (type(valoare).__module__ == "numpy" and type(valoare).__name__ in ("bool_", "bool"))


def _de_ori(n: int) -> str:
    """„o singură dată”, „de 2 ori”, „de 20 de ori”."""
    return "o singură dată" if n == 1 else "de " + cu_substantiv(n, "dată", "ori")


def _mesaj_raspuns_gresit_4(descriere, prima, numar_intrari, apeluri, rulari) -> str:
    """De ce e greșit răspunsul, după ce s-a întâmplat de fapt: câte apeluri a făcut funcția ta și
    câte dintre ele au rulat graful compilat."""
    if prima is not None:
        if apeluri == 0:
            detaliu = "N-ai apelat deloc funcția compilată: apelează-o cu fiecare intrare, în ordine."
        elif apeluri <= prima:
            detaliu = (
                f"Ai apelat funcția compilată {_de_ori(apeluri)}, dar recompilarea apare abia la apelul "
                f"{format_numar(prima + 1)}: apelează-o cu toate intrările."
            )
        else:
            detaliu = (
                "Ai apelat-o cu toate intrările, dar n-ai observat recompilarea: fă apelurile de după primul "
                "sub `torch.compiler.set_stance(\"fail_on_recompile\")`, care o transformă în excepție."
            )
        return (
            f"În cazul „{descriere}” funcția se recompilează (la apelul {format_numar(prima + 1)} din "
            f"{format_numar(numar_intrari)}), dar ai răspuns False. {detaliu}"
        )
    if apeluri == 0:
        detaliu = (
            "N-ai apelat deloc funcția compilată: răspunsul trebuie să vină din ce face Dynamo la apeluri, "
            "nu dintr-o regulă ghicită după forme și tipuri."
        )
    elif rulari == 0:
        detaliu = (
            "Chiar primul apel a aruncat excepția: primul apel compilează întotdeauna, deci nu contează. "
            "Fă-l în afara blocului `fail_on_recompile`."
        )
    else:
        detaliu = "Primul apel compilează întotdeauna: el nu contează, doar apelurile de după el."
    return f"În cazul „{descriere}” nu are loc nicio recompilare, dar ai răspuns True. {detaliu}"


def exercitiul_4(are_recompilare) -> Rezultat:
    """Verifică `are_recompilare(functie_compilata, intrari)` pe șapte cazuri, cu mărimi și ordine
    noi la fiecare rulare: adevărat dacă, după primul apel, vreunul dintre apelurile următoare
    recompilează funcția. Funcția trebuie chiar să apeleze funcția compilată (nu să ghicească
    după forme) și să nu lase în urmă atitudinea „fail_on_recompile”."""

    def corp():
        rng = generator_aleator()
        if not callable(are_recompilare):
            raise GresealaCursant(f"Trebuia o funcție, dar am primit {type(are_recompilare).__name__}.")
        for descriere, optiuni, forme in _cazuri_exercitiul_4(rng):
            tensori = [torch.randn(forma, dtype=tip) for forma, tip in forme]
            prima = _prima_recompilare(descriere, optiuni, tensori)
            asteptat = prima is not None
            _goleste_dynamo()
            numarator = NumaratorCompilari()
            compilata = torch.compile(_dublare, backend=numarator, **optiuni)
            apeluri = [0]

            def functie_compilata(*argumente, **argumente_numite):
                apeluri[0] += 1
                return compilata(*argumente, **argumente_numite)

            eroare_config = torch._dynamo.config.error_on_recompile
            try:
                raspuns = _ruleaza(are_recompilare, functie_compilata, [t.clone() for t in tensori],
                                   ce=f"funcția ta `are_recompilare` (pe cazul „{descriere}”)",
                                   explica_eroarea=_explica_4(descriere))
            finally:
                config_lasat = torch._dynamo.config.error_on_recompile != eroare_config
                torch._dynamo.config.error_on_recompile = eroare_config
                if hasattr(torch.compiler, "set_stance"):
                    atitudine_lasata = _atitudinea_a_ramas_activa()
                    torch.compiler.set_stance("default")
                else:
                    atitudine_lasata = False
            if atitudine_lasata or config_lasat:
                raise GresealaCursant(
                    "Funcția ta lasă activă o setare care transformă recompilările în erori și după ce se "
                    "termină: orice recompilare din restul notebook-ului ar da eroare. Folosește "
                    "`with torch.compiler.set_stance(\"fail_on_recompile\"):`, ca atitudinea să se încheie "
                    "odată cu blocul."
                )
            if raspuns is None:
                raise GresealaCursant(f"Pentru cazul „{descriere}” ai întors None: ai uitat `return`?")
            if not _e_bool(raspuns):
                raise GresealaCursant(
                    f"Pentru cazul „{descriere}” ai întors {type(raspuns).__name__}; trebuia True sau False."
                )
            if bool(raspuns) != asteptat:
                raise GresealaCursant(_mesaj_raspuns_gresit_4(descriere, prima, len(tensori), apeluri[0], numarator.rulari))
            # Mecanismul: răspunsul vine din apelurile funcției compilate, nu dintr-o regulă ghicită.
            if apeluri[0] == 0:
                raise GresealaCursant(
                    f"Pentru cazul „{descriere}” ai răspuns corect, dar n-ai apelat deloc funcția compilată: "
                    "răspunsul trebuie să vină din ce face Dynamo la apeluri, nu dintr-o regulă ghicită după "
                    "forme și tipuri."
                )
            if asteptat and numarator.rulari == 0:
                raise GresealaCursant(
                    f"Pentru cazul „{descriere}” ai răspuns True, dar din alt motiv: chiar primul apel a aruncat "
                    "excepția, înainte de orice recompilare. Primul apel compilează întotdeauna: fă-l în afara "
                    "blocului `fail_on_recompile`."
                )
            necesare = prima if asteptat else len(tensori)
            if numarator.rulari < necesare:
                raise GresealaCursant(
                    f"Pentru cazul „{descriere}” ai răspuns corect, dar graful compilat a rulat doar pentru "
                    f"{format_numar(numarator.rulari)} din {cu_substantiv(len(tensori), 'intrare', 'intrări')}: "
                    "apelează funcția compilată cu fiecare intrare, în ordine."
                )
        return (
            "Detectezi recompilările automat, la fiecare apel: exact ce-ți trebuie într-un test care "
            "protejează un model de recompilări neașteptate."
        )

    return verificare("Exercițiul 4", corp, limita_s=LIMITA_VERIFICARE_S)
