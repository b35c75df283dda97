"""Unelte ca să vezi ce face `torch.compile` dedesubt, construite pe uneltele PyTorch:

- `jurnal_torch(...)` — jurnalele `torch._logging` (echivalentul lui `TORCH_LOGS=...`), prinse
  într-un text pe care îl poți filtra și afișa pe bucăți;
- `BackendInregistrare` — un backend propriu, care păstrează grafurile FX capturate de
  TorchDynamo și le rulează neschimbate (sau le dă lui Inductor);
- `BackendAOT` — la fel, după AOTAutograd: graful înainte și graful înapoi, separate;
- `NumaratorCompilari` — numără grafurile compilate (inclusiv recompilările) și rulările lor;
- `explica(...)` — `torch._dynamo.explain`, rezumat în română;
- `limita_recompilari(n)` — schimbă temporar limita de recompilări, oricare ar fi numele opțiunii
  în versiunea instalată.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
import sys
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

import torch

__all__ = [
    "Jurnal",
    "jurnal_torch",
    "BackendInregistrare",
    "BackendAOT",
    "NumaratorCompilari",
    "Explicatie",
    "explica",
    "numara_operatii",
    "operatii_din_graf",
    "limita_recompilari",
    "nume_limita_recompilari",
    "motiv_scurt",
    "categorie_intrerupere",
    "fara_comentariul",
    "goleste_dynamo",
    "motive_recompilare",
]

# Prefixul unei linii de jurnal torch, de exemplu
# „V1202 10:52:17.555000 10071 torch/_inductor/codecache.py:2145] [0/0] [__output_code] ”.
_PREFIX_JURNAL = re.compile(r"^[VIWE]\d{4} [\d:.]+ +\d+ \S+\] (?:\[[^\]]*\] )*")


def goleste_dynamo() -> None:
    """Dynamo de la zero: compilările uitate, contoarele (`torch._dynamo.utils.counters`) și lista
    gărzilor căzute golite, ca o numărătoare să nu depindă de ce a rulat înainte în proces."""
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    esecuri = getattr(torch._dynamo.utils, "guard_failures", None)
    if esecuri is not None:
        esecuri.clear()


def motive_recompilare() -> list[str]:
    """Gărzile căzute ale recompilărilor de la ultimul `goleste_dynamo` (din
    `torch._dynamo.utils.guard_failures`), fără prefixul „0/0: ”."""
    esecuri = getattr(torch._dynamo.utils, "guard_failures", None) or {}
    return [re.sub(r"^\d+/\d+: ", "", str(m)) for motive in esecuri.values() for m in motive]


@dataclass
class Jurnal:
    """Textul jurnalelor prinse de `jurnal_torch`, fără prefixele de dată și fișier."""

    text: str = ""

    def linii(self, contine: str | tuple[str, ...] | None = None) -> list[str]:
        """Liniile jurnalului; cu `contine`, doar cele care conțin acel text (sau, pentru un
        tuplu, toate textele din el)."""
        cerute = (contine,) if isinstance(contine, str) else tuple(contine or ())
        return [l for l in self.text.splitlines() if all(c in l for c in cerute)]

    def afiseaza(
        self,
        contine: str | tuple[str, ...] | None = None,
        maxim: int = 40,
        taie_la: int = 160,
        fara_comentariu: bool = False,
    ):
        """Tipărește cel mult `maxim` linii (filtrate după `contine`), fiecare tăiată la `taie_la`
        caractere. Cu `fara_comentariu=True`, fiecare linie pierde comentariul de la coadă
        („  # linia din codul tău”), iar liniile care devin identice apar o singură dată."""
        linii = self.linii(contine)
        if fara_comentariu:
            linii = list(dict.fromkeys(fara_comentariul(l) for l in linii))
        for linie in linii[:maxim]:
            print(linie if len(linie) <= taie_la else linie[: taie_la - 1] + "…")
        if len(linii) > maxim:
            print(f"… (linii omise: {len(linii) - maxim})")

    def fragment(self, inceput: str, linii: int = 30) -> list[str]:
        """`linii` linii începând cu prima care conține `inceput` (listă goală dacă nu există)."""
        toate = self.text.splitlines()
        for i, linie in enumerate(toate):
            if inceput in linie:
                return toate[i : i + linii]
        return []

    def __len__(self) -> int:
        return len(self.text.splitlines())


def fara_comentariul(linie: str) -> str:
    """O linie de jurnal fără comentariul de la coadă: gărzile și motivele recompilărilor se
    termină cu „  # linia din codul tău”, care repetă sursa."""
    return linie.split("  # ", 1)[0].rstrip()


def _fara_prefix(text: str) -> str:
    return "\n".join(_PREFIX_JURNAL.sub("", linie) for linie in text.splitlines())


@contextlib.contextmanager
def jurnal_torch(**artefacte: bool):
    """Activează jurnalele `torch._logging` cerute (de exemplu `guards=True`,
    `recompiles=True`, `graph_breaks=True`, `output_code=True`), exact ca variabila de mediu
    `TORCH_LOGS`, dar le prinde într-un `Jurnal` în loc să le afișeze pe ecran.

    Exemplu::

        with jurnal_torch(output_code=True) as jurnal:
            f_compilat(x)
        jurnal.afiseaza(maxim=30)
    """
    jurnal = Jurnal()
    tampon = io.StringIO()
    try:
        with _stderr_torch_catre(tampon):
            torch._logging.set_logs(**artefacte)
            # Și manipulatorii pe care set_logs i-ar fi legat chiar acum de ecran (verificat pe torch 2.11).
            _leaga_fluxurile(tampon)
            yield jurnal
    finally:
        # În afara redirecționării: manipulatorii refăcuți scriu din nou pe ecran.
        torch._logging.set_logs()
        jurnal.text = _fara_prefix(tampon.getvalue())


def _manipulatori_torch() -> list[logging.StreamHandler]:
    """Manipulatorii jurnalelor torch care scriu pe ecran printr-un flux fixat la creare
    (exact `logging.StreamHandler`, legat de stderr), nu prin sys.stderr-ul curent."""
    ecrane = {id(sys.stderr), id(sys.__stderr__)}
    rezultat = []
    for nume, jurnal in list(logging.Logger.manager.loggerDict.items()):
        if not nume.startswith("torch") or not isinstance(jurnal, logging.Logger):
            continue
        for manipulator in jurnal.handlers:
            if (
                type(manipulator) is logging.StreamHandler
                and id(manipulator.stream) in ecrane
                and manipulator not in rezultat
            ):
                rezultat.append(manipulator)
    return rezultat


def _leaga_fluxurile(flux) -> list[tuple[logging.StreamHandler, object]]:
    """Îndreaptă spre `flux` manipulatorii torch legați de un flux fix; întoarce fluxurile vechi."""
    return [(manipulator, manipulator.setStream(flux)) for manipulator in _manipulatori_torch()]


@contextlib.contextmanager
def _stderr_torch_catre(flux):
    """Trimite în `flux` tot ce ar scrie torch pe stderr. Unele versiuni PyTorch scriu în
    sys.stderr-ul curent, altele în fluxul de la crearea manipulatorului: le acoperim pe amândouă."""
    vechi = _leaga_fluxurile(flux)
    try:
        with contextlib.redirect_stderr(flux):
            yield
    finally:
        for manipulator, flux_vechi in vechi:
            if flux_vechi is not None:
                manipulator.setStream(flux_vechi)


def operatii_din_graf(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    """Nodurile care calculează ceva (apeluri de funcții, metode sau module), fără intrări și ieșiri."""
    return [n for n in gm.graph.nodes if n.op in ("call_function", "call_method", "call_module")]


def numara_operatii(gm: torch.fx.GraphModule) -> int:
    """Câte operații are un graf FX."""
    return len(operatii_din_graf(gm))


def _nume_tinta(nod: torch.fx.Node) -> str:
    tinta = nod.target
    if isinstance(tinta, str):
        return tinta
    return getattr(tinta, "__name__", None) or str(tinta)


class BackendInregistrare:
    """Backend pentru `torch.compile(..., backend=...)` care păstrează fiecare graf FX primit de
    la TorchDynamo și apoi îl dă unui backend adevărat: `"eager"` (implicit: îl rulează așa cum
    e, fără să-l optimizeze) sau `"inductor"`.

    Un backend e orice funcție `(graf_fx, exemple_de_intrari) -> funcție apelabilă`."""

    def __init__(self, backend: str = "eager"):
        self.backend = backend
        self.grafuri: list[torch.fx.GraphModule] = []

    def __call__(self, gm: torch.fx.GraphModule, exemple_intrari):
        self.grafuri.append(gm)
        if self.backend == "eager":
            return gm.forward
        return torch._dynamo.lookup_backend(self.backend)(gm, exemple_intrari)

    def operatii_pe_graf(self) -> list[int]:
        return [numara_operatii(g) for g in self.grafuri]

    def tipuri_operatii(self, indice: int = -1) -> Counter:
        """Câte operații de fiecare fel are un graf (implicit, ultimul)."""
        return Counter(_nume_tinta(n) for n in operatii_din_graf(self.grafuri[indice]))


class BackendAOT:
    """Backend care trece graful prin AOTAutograd și păstrează graful înainte (*forward*) și
    graful înapoi (*backward*) pe care le-ar primi Inductor. Atributul `backend` se dă lui `torch.compile`."""

    def __init__(self):
        from functorch.compile import make_boxed_func
        from torch._dynamo.backends.common import aot_autograd

        self.grafuri_inainte: list[torch.fx.GraphModule] = []
        self.grafuri_inapoi: list[torch.fx.GraphModule] = []

        def compilator_inainte(gm, exemple_intrari):
            self.grafuri_inainte.append(gm)
            return make_boxed_func(gm.forward)

        def compilator_inapoi(gm, exemple_intrari):
            self.grafuri_inapoi.append(gm)
            return make_boxed_func(gm.forward)

        self.backend = aot_autograd(fw_compiler=compilator_inainte, bw_compiler=compilator_inapoi)


class NumaratorCompilari(BackendInregistrare):
    """`BackendInregistrare` văzut ca numărător: de câte ori i-a dat Dynamo un graf de compilat
    (prima compilare, fiecare graf de după o întrerupere și fiecare recompilare) și de câte ori
    au rulat grafurile compilate (`rulari`, `rulari_pe_graf`). Un apel care rulează în modul
    eager (de exemplu, după limita de recompilări) nu trece prin niciun graf compilat."""

    def __init__(self, backend: str = "eager"):
        super().__init__(backend)
        self.rulari_pe_graf: list[int] = []

    def __call__(self, gm: torch.fx.GraphModule, exemple_intrari):
        compilat = super().__call__(gm, exemple_intrari)
        indice = len(self.rulari_pe_graf)
        self.rulari_pe_graf.append(0)

        def ruleaza(*argumente):
            self.rulari_pe_graf[indice] += 1
            return compilat(*argumente)

        return ruleaza

    @property
    def compilari(self) -> int:
        return len(self.grafuri)

    @property
    def rulari(self) -> int:
        """De câte ori au rulat, în total, grafurile compilate."""
        return sum(self.rulari_pe_graf)


def motiv_scurt(text: str, maxim: int = 160) -> str:
    """Prima linie cu sens dintr-un motiv de întrerupere sau dintr-un mesaj de eroare Dynamo."""
    for linie in str(text).splitlines():
        linie = linie.strip()
        if linie and not linie.startswith(("Graph break", "Encountered graph break")):
            return linie if len(linie) <= maxim else linie[: maxim - 1] + "…"
    return str(text).strip()[:maxim]


# Motivele de întrerupere, recunoscute după un fragment din textul Dynamo și spuse în română.
# Textul exact diferă între versiunile PyTorch; fragmentele de mai jos apar în cele recente.
_CATEGORII = [
    (("torch.compiler.disable", "disable()"), "funcție exclusă cu torch.compiler.disable"),
    (("graph_break()",), "întrerupere cerută explicit (torch._dynamo.graph_break)"),
    (("print",), "print: efect secundar în afara grafului"),
    (("item()", "capture_scalar_outputs"), "tensor → număr Python (.item(), float(), int())"),
    (("tolist",), "tensor → listă Python (.tolist())"),
    (("generic_jump", "Data-dependent branching", "data-dependent"), "ramificare după valoarea unui tensor"),
    (("ndarray", "numpy"), "operație NumPy pe care Dynamo n-o poate traduce"),
    (("Data dependent operator",), "operație cu rezultat aleator sau dependent de date"),
    (("skipped", "skip"), "apel în cod pe care Dynamo nu-l urmărește (modul C, bibliotecă exclusă)"),
    (("builtin",), "funcție încorporată (builtin) pe care Dynamo n-o cunoaște"),
]


def categorie_intrerupere(motiv: str) -> str:
    """Traduce motivul unei întreruperi într-o categorie scurtă, în română (sau „alt motiv”)."""
    for fragmente, categorie in _CATEGORII:
        if any(f.lower() in str(motiv).lower() for f in fragmente):
            return categorie
    return "alt motiv"


@dataclass
class Explicatie:
    """Ce a găsit `torch._dynamo.explain`: câte grafuri, câte întreruperi și de ce."""

    numar_grafuri: int
    numar_intreruperi: int
    motive: list[str] = field(default_factory=list)
    operatii_pe_graf: list[int] = field(default_factory=list)
    # Pentru fiecare motiv, prima linie plus explicația lui Dynamo („Explanation: …”), din care
    # se alege categoria: prima linie singură e uneori prea generală („Failed to trace builtin
    # operator”, fără numele lui print).
    detalii: list[str] = field(default_factory=list, repr=False)

    @property
    def categorii(self) -> list[str]:
        surse = self.detalii if len(self.detalii) == len(self.motive) else self.motive
        return [categorie_intrerupere(m) for m in surse]

    def __str__(self) -> str:
        linii = [
            f"grafuri: {self.numar_grafuri}, întreruperi: {self.numar_intreruperi}, "
            f"operații pe graf: {self.operatii_pe_graf}"
        ]
        linii += [f"  întrerupere {i}: {c} — Dynamo: „{m}”" for i, (c, m) in enumerate(zip(self.categorii, self.motive), 1)]
        return "\n".join(linii)

    __repr__ = __str__


def explica(functie: Callable, *argumente, **argumente_numite) -> Explicatie:
    """Rulează `torch._dynamo.explain(functie)(*argumente)` și rezumă rezultatul. Avertismentele
    pe care Dynamo le tipărește în timpul analizei sunt ascunse: rezumatul le conține deja.

    Atenție: `explain` golește cache-ul Dynamo (`torch._dynamo.reset()`), deci funcțiile
    compilate înainte se vor recompila la următorul apel."""
    with warnings.catch_warnings(), _stderr_torch_catre(io.StringIO()):
        warnings.simplefilter("ignore")
        rezultat = torch._dynamo.explain(functie)(*argumente, **argumente_numite)
    texte = [str(getattr(m, "reason", m)) for m in rezultat.break_reasons]
    motive = [motiv_scurt(t) for t in texte]
    return Explicatie(
        numar_grafuri=rezultat.graph_count,
        numar_intreruperi=max(0, rezultat.graph_break_count),  # unele versiuni raportează -1
        motive=motive,
        operatii_pe_graf=[numara_operatii(g) for g in rezultat.graphs],
        detalii=[_motiv_si_explicatie(m, t) for m, t in zip(motive, texte)],
    )


def _motiv_si_explicatie(motiv: str, text: str) -> str:
    """Motivul scurt și linia „Explanation: …” a lui Dynamo (dacă există), într-un singur text."""
    explicatii = [l.strip() for l in text.splitlines() if l.strip().startswith("Explanation:")]
    return " ".join([motiv, *explicatii[:1]])


def nume_limita_recompilari() -> str:
    """Numele opțiunii din `torch._dynamo.config`: `recompile_limit` (torch ≥ 2.7) sau
    `cache_size_limit` (versiunile mai vechi)."""
    return "recompile_limit" if hasattr(torch._dynamo.config, "recompile_limit") else "cache_size_limit"


@contextlib.contextmanager
def limita_recompilari(limita: int):
    """Schimbă temporar limita de recompilări a unei funcții (implicit 8 în PyTorch)."""
    nume = nume_limita_recompilari()
    veche = getattr(torch._dynamo.config, nume)
    setattr(torch._dynamo.config, nume, limita)
    try:
        yield nume
    finally:
        setattr(torch._dynamo.config, nume, veche)
