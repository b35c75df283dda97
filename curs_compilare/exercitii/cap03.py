"""Verificările exercițiilor din capitolul 03 (fuziunea kernel-urilor).

Codul cursantului rulează numai sub limita de timp din `baza` (`apeleaza`, `limita_timp`);
intrările sunt aleatoare la fiecare rulare (`generator_aleator`; `CURS_SEMINTA` le fixează).
"""

import inspect
import math
import time
from dataclasses import dataclass

import torch

from ..cifre import are_nevoie_de_de, cu_substantiv, cu_unitate, format_numar, format_timp
from .baza import (
    NESCRIS,
    GresealaCursant,
    Rezultat,
    apeleaza,
    cere_numar,
    compara_tensori,
    cu_originalul,
    explica_exceptie,
    generator_aleator,
    limita_timp,
    linia_cursantului,
    numar_precis,
    repara_limbajul_triton,
    traduce_exceptie,
    traduce_mesaj,
    verificare,
)

try:  # triton nu există pe macOS și pe Windows; exercițiul 2 o spune, celelalte merg oricum
    import triton
    import triton.language as tl
except Exception:  # pragma: no cover - depinde de mașină
    triton = tl = None
else:
    repara_limbajul_triton()  # reține aici limbajul neatins, ca verificările să-l poată repara

__all__ = [
    "exercitiul_1",
    "exercitiul_2",
    "exercitiul_3",
    "referinta_swiglu",
    "FUNCTII_DE_PREZIS",
    "ACCELERARI_ASTEPTATE",
    "intrari_pentru",
]


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: octeții mutați de torch.sigmoid(x * 2.0 + y) * x
# ---------------------------------------------------------------------------------------------

# Pe element, în unități de „octeți pe element”: eager 10 (vezi explicația), fuzionat 3.
_EAGER_PE_ELEMENT = 10
_FUZIONAT_PE_ELEMENT = 3

#: O formulă: un apel al funcției cursantului are voie cel mult atât.
LIMITA_APEL_1_S = 2.0
#: Toată verificarea exercițiului 1.
LIMITA_1_S = 20.0

_DETALIU_EAGER = (
    "Numără pe rând, pentru fiecare operație, tensorii citiți și pe cel scris:\n"
    "  t1 = x * 2.0       citește x,      scrie t1  → 2\n"
    "  t2 = t1 + y        citește t1 și y, scrie t2 → 3\n"
    "  t3 = sigmoid(t2)   citește t2,     scrie t3  → 2\n"
    "  z  = t3 * x        citește t3 și x, scrie z  → 3\n"
    "adică 10 tensori mutați, fiecare de n × octeti_pe_element octeți."
)


_MOTIVE_EAGER = {
    80: "Ai numărat biți, nu octeți (ai înmulțit cu 8 în plus).",
    7: "Ai numărat doar citirile: fiecare operație eager și scrie rezultatul în memorie.",
    4: "Ai numărat doar scrierile: fiecare operație eager își și citește intrările din memorie.",
    8: "Ai pus 2 drumuri pe operație, dar adunarea și ultima înmulțire citesc câte doi tensori.",
    3: "Acesta e numărul pentru versiunea fuzionată; eager face câte un drum pentru fiecare operație.",
}

_MOTIVE_FUZIONAT = {
    4: "x se citește o singură dată: după prima citire stă în registre până la final.",
    2: "Ai uitat o intrare sau ieșirea: kernel-ul fuzionat citește și x, și y, apoi scrie z.",
    10: "Ai dat aceeași valoare ca eager: kernel-ul fuzionat nu mai scrie t1, t2, t3.",
    24: "Ai numărat biți, nu octeți (ai înmulțit cu 8 în plus).",
}


def _motiv(tensori_pe_element: float, motive: dict, implicit: str) -> str:
    """Explicația greșelii recunoscute după numărul de tensori mutați pe element."""
    return next((m for k, m in motive.items() if math.isclose(tensori_pe_element, k, rel_tol=1e-9)), implicit)


def _descrie_numar(valoare: float) -> str:
    if valoare >= 1e6:
        return "peste un milion"
    if valoare <= -1e6:
        return "sub minus un milion"
    return numar_precis(valoare)


def _tensori(valoare: float) -> str:
    """„10,5 tensori”, „20 de tensori”, „peste un milion de tensori”."""
    if abs(valoare) >= 1e6:
        return f"{_descrie_numar(valoare)} de tensori"
    if valoare == 1:
        return "1 tensor"
    return f"{numar_precis(valoare)}{' de' if are_nevoie_de_de(valoare) else ''} tensori"


def _pereche_octeti(rezultat, n, octeti_pe_element):
    """Perechea (eager, fuzionat) ca două numere; primește tuplu, listă sau un tensor / tablou
    NumPy de două elemente."""
    if isinstance(rezultat, torch.Tensor) and rezultat.dim() == 1 and rezultat.numel() == 2 and not rezultat.is_meta:
        rezultat = rezultat.tolist()
    elif type(rezultat).__module__ == "numpy" and getattr(rezultat, "shape", None) == (2,):
        rezultat = rezultat.tolist()
    if not isinstance(rezultat, (tuple, list)) or len(rezultat) != 2:
        if isinstance(rezultat, (tuple, list)):
            descriere = f"un {type(rezultat).__name__} cu {cu_substantiv(len(rezultat), 'element', 'elemente')}"
        elif isinstance(rezultat, (int, float)) and not isinstance(rezultat, bool):
            descriere = f"un singur număr ({format_numar(rezultat) if abs(rezultat) < 1e15 else 'uriaș'})"
        else:
            descriere = "None" if rezultat is None else f"un obiect {type(rezultat).__name__}"
        raise GresealaCursant(
            f"Funcția trebuie să întoarcă o pereche (octeti_eager, octeti_fuzionat); pentru "
            f"n = {format_numar(n)}, octeti_pe_element = {octeti_pe_element} a întors {descriere}."
        )
    return (
        cere_numar(rezultat[0], "octeții eager"),
        cere_numar(rezultat[1], "octeții versiunii fuzionate"),
    )


def _egale(valori) -> bool:
    return all(math.isclose(v, valori[0], rel_tol=1e-9, abs_tol=1e-12) for v in valori)


def _verifica_proportional(nume: str, valori: list[float], cazuri: list[tuple[int, int]]) -> float:
    """Octeții trebuie să fie proporționali cu n × octeti_pe_element. Întoarce numărul de tensori
    mutați pe element sau aruncă `GresealaCursant`, cu o explicație a greșelii."""
    for (n, e), valoare in zip(cazuri, valori):
        if valoare < 0:
            raise GresealaCursant(
                f"Pentru n = {format_numar(n)}, octeti_pe_element = {e}, octeții {nume} ies negativi "
                f"({_descrie_numar(valoare)}): un drum la cămară mută n × octeti_pe_element octeți, un număr pozitiv."
            )
    pe_octet = [v / (n * e) for (n, e), v in zip(cazuri, valori)]
    if _egale(pe_octet):
        return pe_octet[0]
    if _egale([v / n for (n, e), v in zip(cazuri, valori)]):
        raise GresealaCursant(
            f"Rezultatul {nume} nu se schimbă când un element are alt număr de octeți: ai numărat "
            "elemente, nu octeți. Înmulțește cu octeti_pe_element."
        )
    if _egale([v / e for (n, e), v in zip(cazuri, valori)]):
        raise GresealaCursant(
            f"Rezultatul {nume} nu crește cu n: fiecare drum la cămară mută un tensor întreg, de "
            "n × octeti_pe_element octeți."
        )
    i = next(i for i, r in enumerate(pe_octet) if not math.isclose(r, pe_octet[0], rel_tol=1e-9, abs_tol=1e-12))
    (n, e), valoare = cazuri[i], valori[i]
    raise GresealaCursant(
        f"Pentru n = {format_numar(n)}, octeti_pe_element = {e}, rezultatul {nume} e {_descrie_numar(valoare)}: "
        "octeții trebuie să fie proporționali cu n × octeti_pe_element (fiecare drum la cămară "
        "mută un tensor întreg, fără adaosuri fixe)."
    )


def exercitiul_1(octeti_mutati) -> Rezultat:
    """Verifică `octeti_mutati(n, octeti_pe_element) -> (eager, fuzionat)` pentru lanțul
    `torch.sigmoid(x * 2.0 + y) * x`, cu x și y de câte n elemente, pe valori n alese la
    întâmplare la fiecare rulare."""

    def corp():
        aleator = generator_aleator()
        cazuri = [
            (aleator.randrange(1000, 1_000_000), 4),
            (aleator.randrange(1, 1000), 2),
            (aleator.randrange(1000, 1_000_000), 8),
            (aleator.randrange(1, 1_000_000), 1),
        ]
        perechi = [
            _pereche_octeti(
                apeleaza(octeti_mutati, n, e, limita_s=LIMITA_APEL_1_S,
                         ce=f"funcția ta, pentru n = {format_numar(n)} și octeti_pe_element = {e},"),
                n, e,
            )
            for n, e in cazuri
        ]
        eager = _verifica_proportional("eager", [p[0] for p in perechi], cazuri)
        fuzionat = _verifica_proportional("fuzionat", [p[1] for p in perechi], cazuri)
        if math.isclose(eager, _FUZIONAT_PE_ELEMENT) and math.isclose(fuzionat, _EAGER_PE_ELEMENT):
            raise GresealaCursant(
                "Ai inversat perechea: întâi octeții eager (10 tensori pe element), apoi ai versiunii "
                "fuzionate (3)."
            )
        if not math.isclose(eager, _EAGER_PE_ELEMENT, rel_tol=1e-9):
            motiv = _motiv(eager, _MOTIVE_EAGER, f"Ai {_tensori(eager)} mutați pe element în loc de 10.")
            raise GresealaCursant(f"Octeții eager nu sunt corecți. {motiv}\n{_DETALIU_EAGER}")
        if not math.isclose(fuzionat, _FUZIONAT_PE_ELEMENT, rel_tol=1e-9):
            motiv = _motiv(fuzionat, _MOTIVE_FUZIONAT, f"Ai {_tensori(fuzionat)} mutați pe element.")
            raise GresealaCursant(
                f"Octeții versiunii fuzionate nu sunt corecți. {motiv} Un kernel fuzionat citește "
                "fiecare intrare o dată și scrie doar rezultatul final: 3 tensori."
            )
        return (
            "Eager mută 10 tensori, versiunea fuzionată 3: de 3,3 ori mai puțini octeți. Pe un "
            "tensor mare, limitat de memorie, cam de atâtea ori ar trebui să scadă și timpul."
        )

    return verificare("Exercițiul 1", corp, limita_s=LIMITA_1_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: un kernel Triton fuzionat, scris de mână
# ---------------------------------------------------------------------------------------------


def referinta_swiglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Ce trebuie să calculeze kernel-ul: silu(a) · b = a · sigmoid(a) · b (poarta din SwiGLU),
    socotit în float32 și scris în tipul intrărilor."""
    a32, b32 = a.float(), b.float()
    return (a32 * torch.sigmoid(a32) * b32).to(a.dtype)


if triton is not None:
    # Kernel-ul de referință: după el se socotesc limita de timp (prin interpretor) și viteza
    # așteptată (pe GPU).

    @triton.jit
    def _kernel_referinta(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        masca = offsets < n
        a = tl.load(a_ptr + offsets, mask=masca).to(tl.float32)
        b = tl.load(b_ptr + offsets, mask=masca).to(tl.float32)
        tl.store(iesire_ptr + offsets, a * tl.sigmoid(a) * b, mask=masca)


#: Valoarea cu care se umple memoria din jurul ieșirii (exactă și în float16).
_SANTINELA = 12288.0
#: Câte elemente-santinelă stau înaintea ieșirii (prind deplasările negative, până la două blocuri).
_INAINTE = 2048
#: Cel mai mic bloc acceptat când îți lansezi singur kernel-ul: sub el, fiecare program face prea
#: puțin, iar costul fix al programelor domină (și pe GPU, și prin interpretor).
BLOC_MINIM = 64
#: Prin interpretor (CPU): o lansare are voie cel puțin atât...
LIMITA_MINIMA_CPU_S = 3.0
#: ... sau de atâtea ori cât îi trebuie kernel-ului de referință pe aceleași date.
FACTOR_LENT_CPU = 40
#: Funcția care își lansează singură kernel-ul, rulată o dată cu lansările Triton oprite (ca să
#: se vadă ce lansează), are voie atât.
LIMITA_SONDA_S = 10.0
#: Pe GPU, o lansare are voie atât (prima include compilarea kernel-ului).
LIMITA_LANSARE_GPU_S = 90.0
#: Pe GPU, un kernel corect, dar de peste atâtea ori mai lent decât cel de referință, e respins.
FACTOR_LENT_GPU = 10.0
#: Numărul de elemente pe care se măsoară viteza pe GPU.
N_VITEZA_GPU = 2**24
#: Toată verificarea exercițiului 2.
LIMITA_2_CPU_S = 90.0
LIMITA_2_GPU_S = 300.0
#: Toleranțele (rtol, atol) după tipul datelor.
_TOLERANTE = {torch.float32: (1e-4, 1e-5), torch.float16: (2e-3, 1e-3)}
_NUME_TIP = {torch.float32: "float32", torch.float16: "float16"}

_SFAT_CORP = (
    "În corpul unui kernel Triton poți folosi doar tl.* și aritmetică pe blocuri: tl.program_id, "
    "tl.arange, tl.load, tl.store, tl.sigmoid sau tl.exp."
)
_SFAT_JIT = (
    "Pune @triton.jit deasupra lui `def` și scrie corpul cu tl.load / tl.store, apoi dă verificării "
    "kernel-ul, fără paranteze: `verificari.exercitiul_2(kernel_swiglu)`."
)


def _pe_interpretor() -> bool:
    return triton is not None and type(_kernel_referinta).__name__ == "InterpretedFunction"


def _clase_kernel():
    from triton.runtime.jit import KernelInterface

    return KernelInterface


def _functia_din_kernel(kernel):
    """Funcția Python din spatele unui kernel (și din spatele lui @triton.autotune / heuristics)."""
    functie = getattr(kernel, "fn", None)
    while functie is not None and not inspect.isfunction(functie):
        functie = getattr(functie, "fn", None)
    return functie


def _parametri_kernel(kernel) -> list[inspect.Parameter]:
    functie = _functia_din_kernel(kernel)
    return list(inspect.signature(functie).parameters.values()) if functie is not None else []


def _e_constexpr(parametru: inspect.Parameter) -> bool:
    adnotare = parametru.annotation
    return adnotare is not inspect.Parameter.empty and "constexpr" in str(adnotare)


# --- lansările de kernel-uri Triton, înregistrate ------------------------------------------------


class _Lansare:
    """O lansare de kernel Triton: kernel-ul, grila (ca tuplu de numere întregi, dacă se poate
    afla) și blocul (singurul parametru `tl.constexpr` întreg, dacă există). Grila dată ca funcție
    se evaluează chiar la lansare, sub limita de timp a codului cursantului."""

    def __init__(self, kernel, grila, argumente: tuple, numite: dict):
        self.kernel = kernel
        self.adrese_tensori = {
            v.untyped_storage().data_ptr() for v in (*argumente, *numite.values()) if isinstance(v, torch.Tensor)
        }
        parametri = _parametri_kernel(kernel)
        valori = dict(zip((p.name for p in parametri), argumente))
        valori.update(numite)
        try:
            if callable(grila):
                grila = grila(valori)
            grila = tuple(int(g) for g in grila)
            self._programe = grila or None
        except Exception:
            self._programe = None
        constante = [p.name for p in parametri if _e_constexpr(p)]
        bloc = valori.get(constante[0]) if len(constante) == 1 else None
        self._bloc = bloc if isinstance(bloc, int) and not isinstance(bloc, bool) else None

    def programe(self) -> tuple | None:
        return self._programe

    def bloc(self) -> int | None:
        return self._bloc


_inregistrari_active: list = []


class _Inregistrare:
    """Cât timp e activă, înregistrează fiecare lansare de kernel Triton (`kernel[grila](...)`,
    `kernel.run`, și prin @triton.autotune) și, cu `executa=False`, nu o execută: așa se vede ce
    lansează funcția cursantului și dacă rezultatul vine chiar din kernel."""

    def __init__(self, executa: bool = True):
        self.executa = executa
        self.lansari: list[_Lansare] = []
        self._adancime = 0
        self._vechi: list = []

    @staticmethod
    def _clase():
        clase = []
        for modul, nume in (
            ("triton.runtime.jit", "JITFunction"),
            ("triton.runtime.interpreter", "InterpretedFunction"),
            ("triton.runtime.autotuner", "Autotuner"),
            ("triton.runtime.autotuner", "Heuristics"),
        ):
            try:
                clasa = getattr(__import__(modul, fromlist=[nume]), nume)
            except Exception:
                continue
            if "run" in vars(clasa):
                clase.append(clasa)
        return clase

    def __enter__(self):
        for clasa in self._clase():
            original = vars(clasa)["run"]

            def run(obiect, *argumente, _original=original, **numite):
                inregistrare = _inregistrari_active[-1] if _inregistrari_active else None
                if inregistrare is None or inregistrare._adancime or numite.get("warmup"):
                    return _original(obiect, *argumente, **numite)
                inregistrare.lansari.append(_Lansare(
                    obiect, numite.get("grid"), argumente,
                    {k: v for k, v in numite.items() if k not in ("grid", "warmup")},
                ))
                if not inregistrare.executa:
                    return None
                inregistrare._adancime += 1
                try:
                    return _original(obiect, *argumente, **numite)
                finally:
                    inregistrare._adancime -= 1

            self._vechi.append((clasa, original))
            clasa.run = run
        _inregistrari_active.append(self)
        return self

    def __exit__(self, *exceptie):
        _inregistrari_active.remove(self)
        for clasa, original in reversed(self._vechi):
            clasa.run = original
        self._vechi.clear()
        return False


# --- datele unei încercări ---------------------------------------------------------------------


@dataclass
class _Date:
    """Intrările și ieșirea unei lansări: vederi în tensori mai mari, ca scrierile în afara
    ieșirii să se vadă (memoria din jur e plină de santinele)."""

    n: int
    bloc: int
    tip: torch.dtype
    a: torch.Tensor
    b: torch.Tensor
    iesire_tot: torch.Tensor
    iesire: torch.Tensor

    @classmethod
    def noi(cls, n, bloc, tip, dispozitiv, generator, dupa=None):
        dupa = dupa if dupa is not None else max(n, 1024) + 2 * bloc
        total = _INAINTE + n + dupa

        def aleator():
            return torch.randn(total, generator=generator).to(device=dispozitiv, dtype=tip)[_INAINTE:_INAINTE + n]

        iesire_tot = torch.full((total,), _SANTINELA, dtype=tip, device=dispozitiv)
        return cls(n, bloc, tip, aleator(), aleator(), iesire_tot, iesire_tot[_INAINTE:_INAINTE + n])

    def reseteaza(self):
        self.iesire_tot.fill_(_SANTINELA)

    def descriere(self, cu_bloc=True) -> str:
        bloc = f", BLOCK = {self.bloc}" if cu_bloc else ""
        return f"n = {format_numar(self.n)}{bloc}, {_NUME_TIP[self.tip]}"


def _cazuri_2(aleator, pe_gpu: bool) -> list[tuple[int, int, torch.dtype]]:
    """(n, BLOCK, dtype): un n mai mic decât blocul, un multiplu exact de bloc, restul nemultipli
    (acolo contează masca), în float32 și float16; pe GPU, și câte un tensor de un milion."""

    def nemultiplu(jos, sus, bloc):
        n = aleator.randrange(jos, sus)
        return n + 1 if n % bloc == 0 else n

    f32, f16 = torch.float32, torch.float16
    cazuri = [
        (aleator.randrange(1, 100), 128, f32),
        (256 * aleator.randrange(2, 9), 256, f32),
        (nemultiplu(1000, 5000, 256), 256, f32),
        (nemultiplu(12_000, 20_000, 1024), 1024, f32),
        (nemultiplu(1000, 5000, 256), 256, f16),
        (nemultiplu(12_000, 20_000, 1024), 1024, f16),
    ]
    if pe_gpu:
        cazuri += [(nemultiplu(2**20, 2**21, 1024), 1024, f32), (nemultiplu(2**20, 2**21, 1024), 1024, f16)]
    return cazuri


# --- explicațiile ------------------------------------------------------------------------------


def _cauza(eroare: BaseException) -> BaseException:
    """Interpretorul Triton învelește excepțiile kernel-ului în InterpreterError: cauza e cea utilă."""
    while type(eroare).__name__ == "InterpreterError" and eroare.__cause__ is not None:
        eroare = eroare.__cause__
    return eroare


def _text_eroare(eroare: BaseException) -> str:
    """Excepția unei lansări, ca text: o eroare de compilare Triton cu rândul din kernel."""
    originala, eroare = eroare, _cauza(eroare)
    if hasattr(eroare, "node") and hasattr(eroare, "src") and hasattr(eroare, "error_message"):
        detaliu = eroare.error_message or (str(eroare.__cause__) if eroare.__cause__ else "")
        tradus = traduce_mesaj(detaliu, type(eroare.__cause__) if eroare.__cause__ is not None else None)
        rand = getattr(eroare.node, "lineno", None)
        linie = ""
        if rand and eroare.src:
            randuri = eroare.src.split("\n")
            if 0 < rand <= len(randuri):
                linie = f" (`{randuri[rand - 1].strip()}`)"
        unde = f" la rândul {rand} al kernel-ului{linie}" if rand else ""
        return f"Triton n-a putut compila kernel-ul ({type(eroare).__name__}){unde}" + (f": {tradus}." if tradus else ".")
    # linia se caută în tot lanțul: interpretorul Triton învelește fiecare funcție @triton.jit
    return explica_exceptie(eroare, linie=linia_cursantului(originala), original=False)


def _original_eroare(eroare: BaseException) -> str:
    """Un rând din mesajul original al excepției unei lansări (de pus la capătul explicației)."""
    eroare = _cauza(eroare)
    if hasattr(eroare, "node") and hasattr(eroare, "src") and hasattr(eroare, "error_message"):
        return cu_originalul(eroare.error_message or (str(eroare.__cause__) if eroare.__cause__ else ""))
    return cu_originalul(traduce_exceptie(eroare))


def _explica_lansarea(eroare, date: _Date, mod: str, kernel, tipuri_trecute: set) -> str:
    text = _explica_lansarea_fara_original(eroare, date, mod, kernel, tipuri_trecute)
    return text if text == NESCRIS else text + _original_eroare(eroare)


def _explica_lansarea_fara_original(eroare, date: _Date, mod: str, kernel, tipuri_trecute: set) -> str:
    cauza = _cauza(eroare)
    text = _text_eroare(eroare)
    if text == NESCRIS:
        return NESCRIS
    if "CUDA error" in str(cauza) or "illegal memory access" in str(cauza):
        return (
            f"Kernel-ul a oprit GPU-ul cu o eroare CUDA pentru {date.descriere()}: {text} De obicei e o "
            "citire sau o scriere în afara tensorilor: pune masca (offsets < n) și în tl.load, și în "
            "tl.store. După o eroare CUDA, repornește kernel-ul Jupyter."
        )
    if "NotImplementedError" in str(cauza) and "raise" in str(cauza):
        return NESCRIS  # pe GPU, `raise NotImplementedError` din kernel e o eroare de compilare Triton
    if "maximum tensor numel" in str(cauza):
        return (
            f"Blocul tău e prea mare pentru {date.descriere(mod != 'functie')}: un program Triton are cel "
            f"mult {format_numar(2**20)} de elemente într-un bloc. Împarte tensorul între mai multe "
            "programe: grila triton.cdiv(n, BLOCK), cu un BLOCK de ordinul 1 024."
        )
    if "triton.jit" in str(cauza) and mod != "kernel":
        return (
            "Funcția ta folosește tl.* în afara unui kernel Triton: tl.program_id, tl.load, tl.store "
            f"există doar în corpul unei funcții cu @triton.jit. {_SFAT_JIT}"
        )
    if "active drivers" in str(cauza):
        return (
            f"Funcția ta n-a rulat pentru {date.descriere(False)}: {text} Pe CPU, prin interpretorul Triton, "
            "@triton.autotune nu merge (reglarea măsoară pe GPU): scoate decoratorul și alege tu BLOCK."
        )
    if mod == "kernel":
        parametri = _parametri_kernel(kernel)
        if parametri and not _e_constexpr(parametri[-1]):
            return (
                f"Kernel-ul n-a rulat pentru {date.descriere()}: {text} Blocul trebuie să fie o "
                f"constantă la compilare: declară ultimul parametru `{parametri[-1].name}: tl.constexpr`."
            )
    if date.tip == torch.float16 and torch.float32 in tipuri_trecute:
        return (
            f"Kernel-ul merge pe float32, dar nu și pe float16 ({date.descriere()}): {text} tl.sigmoid și "
            "tl.exp lucrează doar pe float32 (sau float64): după citire, convertește, "
            "`a = tl.load(...).to(tl.float32)`; tl.store scrie singur rezultatul în tipul ieșirii."
        )
    ce = "Kernel-ul" if mod == "kernel" else "Funcția ta"
    return f"{ce} n-a rulat pentru {date.descriere(mod != 'functie')}: {text} {_SFAT_CORP}"


def _asteapta_gpu() -> None:
    """Așteaptă GPU-ul în Python, nu într-un apel C, ca limita de timp să-l poată întrerupe."""
    eveniment = torch.cuda.Event()
    eveniment.record()
    while not eveniment.query():
        time.sleep(0.0005)


def _lanseaza_referinta(date: _Date, bloc: int) -> torch.Tensor:
    iesire = torch.empty_like(date.a)
    _kernel_referinta[(triton.cdiv(date.n, bloc),)](date.a, date.b, iesire, date.n, bloc)
    return iesire


def _timp_referinta(date: _Date, bloc: int) -> float:
    start = time.perf_counter()
    _lanseaza_referinta(date, bloc)
    return time.perf_counter() - start


def _ruleaza(lansare, date: _Date, mod: str, kernel, tipuri_trecute: set, limita_s: float, mesaj_timp: str,
             executa: bool = True, pe_gpu: bool = False):
    """Rulează lansarea cursantului sub limită, cu lansările Triton înregistrate. Întoarce
    (valoarea întoarsă, lansările)."""
    try:
        with limita_timp(limita_s, "kernel-ul tău", mesaj=mesaj_timp):
            with _Inregistrare(executa=executa) as inregistrare:
                valoare = lansare()
            if pe_gpu and executa:
                _asteapta_gpu()
    except GresealaCursant:
        raise
    except Exception as eroare:
        raise GresealaCursant(_explica_lansarea(eroare, date, mod, kernel, tipuri_trecute)) from None
    return valoare, inregistrare.lansari


def _mesaj_lent(date: _Date, limita_s: float, t_ref: float, mod: str, lansari=()) -> str:
    grila = ""
    for lansare in lansari:
        programe, bloc = lansare.programe(), lansare.bloc()
        if programe:
            grila = f" Lansarea ta pornește {cu_substantiv(math.prod(programe), 'program', 'programe')}"
            grila += f", cu BLOCK = {bloc}." if bloc else "."
    pe_bloc = f"pe blocuri de {format_numar(date.bloc if mod == 'kernel' else 1024)} de elemente"
    return (
        f"Kernel-ul tău n-a terminat în {format_timp(limita_s)} pentru {date.descriere(mod == 'kernel')}, "
        f"deși unul care lucrează {pe_bloc} termină în {format_timp(t_ref)} (prin interpretor).{grila} "
        "E mult prea lent sau nu se oprește: probabil parcurgi elementele unul câte unul (o buclă în "
        "kernel) în loc să lucrezi pe tot blocul deodată, cu tl.arange(0, BLOCK), tl.load și tl.store."
    )


def _iesirea_modificata(date: _Date) -> bool:
    return not bool((date.iesire == _SANTINELA).all()) if date.n else False


def _aproape(x, y, tip) -> bool:
    rtol, atol = _TOLERANTE[tip]
    try:
        return x.shape == y.shape and bool(torch.allclose(x.float(), y.float(), rtol=rtol, atol=atol))
    except Exception:
        return False


def _sondeaza(lansare, date: _Date, mod: str, tipuri_trecute: set) -> list[_Lansare]:
    """Rulează funcția cursantului cu lansările Triton oprite: ce kernel-uri lansează, cu ce grilă,
    și dacă rezultatul apare și fără ele (adică e calculat altfel decât în kernel)."""
    valoare, lansari = _ruleaza(
        lansare, date, mod, None, tipuri_trecute, LIMITA_SONDA_S,
        "Funcția ta n-a terminat nici fără să ruleze vreun kernel Triton: caută o buclă care nu se oprește.",
        executa=False,
    )
    asteptat = referinta_swiglu(date.a, date.b)
    if mod == "functie" and isinstance(valoare, torch.Tensor):
        # Un tensor dat chiar kernel-ului (oprit aici) e memorie neinițializată: dacă acolo se află,
        # întâmplător, un rezultat vechi, nu înseamnă că funcția l-a calculat cu torch.
        dat_kernelului = any(valoare.untyped_storage().data_ptr() in l.adrese_tensori for l in lansari)
        calculat = _aproape(valoare, asteptat, date.tip)
        if calculat and dat_kernelului:
            # Încă o dată, pe alte valori: memoria veche nu le mai poate ghici, un calcul torch da.
            vechi_a, vechi_b = date.a.clone(), date.b.clone()
            date.a.copy_(torch.rand_like(date.a) * 4 - 2)
            date.b.copy_(torch.rand_like(date.b) * 4 - 2)
            try:
                valoare, _ = _ruleaza(
                    lansare, date, mod, None, tipuri_trecute, LIMITA_SONDA_S,
                    "Funcția ta n-a terminat nici fără să ruleze vreun kernel Triton: caută o buclă care nu se oprește.",
                    executa=False,
                )
                calculat = isinstance(valoare, torch.Tensor) and _aproape(valoare, referinta_swiglu(date.a, date.b), date.tip)
            finally:
                date.a.copy_(vechi_a)
                date.b.copy_(vechi_b)
    else:
        calculat = _iesirea_modificata(date)
    if not lansari:
        if calculat:
            raise GresealaCursant(
                "Funcția ta calculează rezultatul cu operații torch, fără niciun kernel Triton. "
                f"Exercițiul cere un kernel Triton. {_SFAT_JIT}"
            )
        raise GresealaCursant(
            f"Am primit o funcție Python obișnuită, care nu lansează niciun kernel Triton. {_SFAT_JIT}"
        )
    kerneluri = {id(l.kernel) for l in lansari}
    if len(kerneluri) > 1:
        raise GresealaCursant(
            f"Funcția ta lansează {cu_substantiv(len(kerneluri), 'kernel', 'kernel-uri')} Triton diferite: "
            "exercițiul cere unul singur, fuzionat, care citește a și b o dată și scrie doar rezultatul."
        )
    if calculat:
        raise GresealaCursant(
            "Rezultatul apare și fără kernel-ul Triton: funcția ta îl calculează (și) cu operații torch. "
            "Tot calculul trebuie să se facă în kernel, într-un singur drum dus-întors la cămară."
        )
    for lansare_inregistrata in lansari:
        programe, bloc = lansare_inregistrata.programe(), lansare_inregistrata.bloc()
        numar = math.prod(programe) if programe else None
        if bloc is not None and bloc < BLOC_MINIM:
            descriere = cu_substantiv(numar, "program", "programe") if numar else "câte un program"
            raise GresealaCursant(
                f"Lansarea ta pornește {descriere} cu BLOCK = {bloc} (adică "
                f"{cu_substantiv(bloc, 'element', 'elemente')} pe program) pentru {date.descriere(False)}: blocuri atât de mici fac kernel-ul mult prea lent, fiindcă fiecare "
                f"program are un cost fix. Folosește blocuri de cel puțin {BLOC_MINIM} de elemente (de obicei "
                "1 024) și grila (triton.cdiv(n, BLOCK),)."
            )
        if numar and numar > triton.cdiv(date.n, BLOC_MINIM):
            necesare = f", în loc de triton.cdiv(n, BLOCK) = {format_numar(triton.cdiv(date.n, bloc))}" if bloc else ""
            raise GresealaCursant(
                f"Grila ta pornește {cu_substantiv(numar, 'program', 'programe')} pentru "
                f"{date.descriere(False)}{necesare}: fiecare program are un cost fix, iar cele în plus fac "
                "kernel-ul mult prea lent. Grila potrivită e (triton.cdiv(n, BLOCK),)."
            )
    return lansari


def _acoperire(lansari: list[_Lansare]) -> tuple[int, int, int] | None:
    """(programe pe axa 0, BLOCK, elemente acoperite) ale singurei lansări, dacă se pot afla."""
    if len(lansari) != 1:
        return None
    programe, bloc = lansari[0].programe(), lansari[0].bloc()
    if not programe or bloc is None:
        return None
    return programe[0], bloc, programe[0] * bloc


def _verifica_iesirea(obtinut, date: _Date, mod: str, lansari: list[_Lansare], pointer: int) -> None:
    """Compară rezultatul cu referința și explică prima greșeală găsită."""
    asteptat = referinta_swiglu(date.a, date.b)
    rtol, atol = _TOLERANTE[date.tip]
    context = date.descriere(mod == "kernel")
    if mod != "functie":
        if date.iesire.data_ptr() != pointer or date.iesire.dtype != date.tip:
            raise GresealaCursant(
                "Ai înlocuit tensorul de ieșire în loc să scrii în el: kernel-ul scrie rezultatul prin "
                "iesire_ptr, cu tl.store."
            )
        if not bool((date.iesire_tot[:_INAINTE] == _SANTINELA).all()):
            raise GresealaCursant(
                f"Pentru {context}, kernel-ul a scris înaintea începutului tensorului de ieșire: "
                "pozițiile trebuie să pornească de la 0, offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)."
            )
        if not bool((date.iesire_tot[_INAINTE + date.n:] == _SANTINELA).all()):
            raise GresealaCursant(
                f"Pentru {context}, kernel-ul a scris după sfârșitul tensorului de ieșire. Ultimul bloc iese "
                "din tensor când n nu e multiplu de BLOCK: calculează mask = offsets < n și dă-l lui "
                "tl.store (și lui tl.load)."
            )
        nescrise = date.iesire == _SANTINELA
        if bool(nescrise.all()):
            raise GresealaCursant(
                f"Kernel-ul n-a scris nimic în ieșire ({context}): încă n-ai scris soluția? Calculează "
                "rezultatul și scrie-l cu tl.store(iesire_ptr + offsets, rezultat, mask=mask)."
            )
        if bool(nescrise.any()):
            primul = min(date.n, date.bloc)
            acoperire = _acoperire(lansari) if mod == "lansare" else None
            if acoperire is not None and acoperire[2] < date.n:
                programe, bloc, elemente = acoperire
                raise GresealaCursant(
                    f"Grila ta pornește {cu_substantiv(programe, 'program', 'programe')} cu "
                    f"BLOCK = {bloc}, adică acoperă {format_numar(elemente)} din "
                    f"n = {format_numar(date.n)}: restul elementelor nu le scrie nimeni. Grila trebuie să "
                    "depindă de n, (triton.cdiv(n, BLOCK),); sau dă verificării kernel-ul fără grilă "
                    "(`kernel_swiglu`), iar ea alege grila pentru fiecare n."
                )
            if (mod == "kernel" and date.n > date.bloc and bool(nescrise[primul:].all())
                    and _aproape(date.iesire[:primul], asteptat[:primul], date.tip)):
                raise GresealaCursant(
                    f"Pentru {context}, doar primul bloc e scris. Fiecare program trebuie să-și ia propriul "
                    "bloc: offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)."
                )
            raise GresealaCursant(
                f"Pentru {context}, {format_numar(int(nescrise.sum()))} din {format_numar(date.n)} elemente "
                "n-au fost scrise deloc: fiecare program trebuie să scrie tot blocul lui (offsets = "
                "tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)), iar grila să acopere tot tensorul."
            )
        obtinut = date.iesire
    try:
        compara_tensori(obtinut, asteptat, context, rtol=rtol, atol=atol)
    except GresealaCursant as greseala:
        if not str(greseala).startswith("Valorile diferă"):
            raise
        a32, b32 = date.a.float(), date.b.float()
        if _aproape(obtinut, torch.sigmoid(a32) * b32, date.tip):
            raise GresealaCursant("Ai calculat sigmoid(a) · b: lipsește înmulțirea cu a (silu(a) = a · sigmoid(a)).") from None
        if _aproape(obtinut, a32 * torch.sigmoid(a32), date.tip):
            raise GresealaCursant("Ai calculat silu(a) = a · sigmoid(a), dar n-ai înmulțit cu b.") from None
        raise


def _mod_de_lansare(obiect) -> str:
    """„kernel” (un kernel Triton, lansat de verificare), „lansare” (o funcție care primește
    (a, b, iesire, n, BLOCK) și lansează kernel-ul, de exemplu `kernel_swiglu[grila]`) sau
    „functie” (o funcție `f(a, b)` care întoarce rezultatul, ca `lant_triton`)."""
    if isinstance(obiect, _clase_kernel()):
        parametri = _parametri_kernel(obiect)
        if len(parametri) != 5:
            raise GresealaCursant(
                "Kernel-ul trebuie să aibă exact parametrii (a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr); "
                f"al tău are ({', '.join(p.name for p in parametri)})."
            )
        constante = [p.name for p in parametri if _e_constexpr(p)]
        if constante and not _e_constexpr(parametri[-1]):
            raise GresealaCursant(
                "Verificarea dă parametrii în ordinea (a_ptr, b_ptr, iesire_ptr, n, BLOCK): blocul, "
                f"`{constante[0]}: tl.constexpr`, trebuie să fie ultimul; la tine ordinea e "
                f"({', '.join(p.name for p in parametri)})."
            )
        if hasattr(obiect, "configs"):
            raise GresealaCursant(
                "Verificarea alege singură BLOCK (mai multe valori, ca să vadă masca la lucru), deci nu "
                "poate lansa un kernel cu @triton.autotune: scoate decoratorul. Reglarea automată vine "
                "în capitolul 05."
            )
        return "kernel"
    if not callable(obiect):
        raise GresealaCursant(f"Am primit {type(obiect).__name__}, nu un kernel Triton. {_SFAT_JIT}")
    try:
        semnatura = inspect.signature(obiect)
    except (TypeError, ValueError):
        return "lansare"
    for numar, mod in ((5, "lansare"), (2, "functie")):
        try:
            semnatura.bind(*range(numar))
            return mod
        except TypeError:
            continue
    nume = getattr(obiect, "__name__", type(obiect).__name__)
    raise GresealaCursant(
        f"Am primit funcția Python `{nume}{semnatura}`: nu e un kernel Triton, nici o funcție care "
        f"lansează unul. {_SFAT_JIT}"
    )


def _verifica_viteza_gpu(lansare_pentru, mod: str, kernel, generator, dispozitiv) -> str:
    """Pe GPU: kernel-ul cursantului, pe un tensor mare, față de kernel-ul de referință."""
    from ..masurare import compara

    date = _Date.noi(N_VITEZA_GPU, 1024, torch.float32, dispozitiv, generator)
    lansare = lansare_pentru(date)
    pointer = date.iesire.data_ptr()
    valoare, lansari = _ruleaza(lansare, date, mod, kernel, {torch.float32, torch.float16}, LIMITA_LANSARE_GPU_S,
                                "Kernel-ul tău n-a terminat pe GPU, pe un tensor de "
                                f"{format_numar(N_VITEZA_GPU)} de elemente, în {format_timp(LIMITA_LANSARE_GPU_S)}: "
                                "e mult prea lent sau nu se oprește. După asta, repornește kernel-ul Jupyter.",
                                pe_gpu=True)
    _verifica_iesirea(valoare, date, mod, lansari, pointer)
    iesire_ref = torch.empty_like(date.a)
    grila = (triton.cdiv(date.n, 1024),)

    def referinta():
        _kernel_referinta[grila](date.a, date.b, iesire_ref, date.n, 1024)

    with limita_timp(LIMITA_LANSARE_GPU_S, "măsurarea kernel-ului tău"):
        comparatie = compara({"al tău": lansare, "referința": referinta}, runde=3, timp_minim_s=0.15,
                             incalziri=2, pe_gpu=True, ceas="gpu", pazeste_recompilari=False)
    t_tau, t_ref = comparatie["al tău"].mediana_s, comparatie["referința"].mediana_s
    raport = t_tau / t_ref
    if raport > FACTOR_LENT_GPU:
        programe = _acoperire(lansari)
        try:
            from ..mediu import detecteaza_mediul

            multiprocesoare = detecteaza_mediul().numar_sm or 0
        except Exception:
            multiprocesoare = 0
        detaliu = ""
        if programe is not None and programe[0] < multiprocesoare:
            detaliu = (
                f" Grila ta pornește doar {cu_substantiv(programe[0], 'program', 'programe')}: fiecare program "
                "rulează pe un singur multiprocesor (SM), iar GPU-ul tău are "
                f"{cu_substantiv(multiprocesoare, 'multiprocesor', 'multiprocesoare')}."
            )
        raise GresealaCursant(
            f"Kernel-ul tău dă valorile corecte, dar e mult prea lent: pe {format_numar(N_VITEZA_GPU)} de "
            f"elemente îi trebuie {format_timp(t_tau)}, de {cu_substantiv(round(raport), 'dată', 'ori')} mai mult "
            f"decât unui kernel cu blocuri de 1 024 de elemente ({format_timp(t_ref)}).{detaliu} Lucrează pe "
            "tot blocul deodată (tl.arange, tl.load, tl.store pe blocuri), fără bucle peste elemente."
        )
    return f" Pe {format_numar(N_VITEZA_GPU)} de elemente: {format_timp(t_tau)}, referința {format_timp(t_ref)}."


def exercitiul_2(kernel) -> Rezultat:
    """Lansează kernel-ul Triton al cursantului, `kernel(a_ptr, b_ptr, iesire_ptr, n, BLOCK)`, cu
    grila `(triton.cdiv(n, BLOCK),)`, pe intrări aleatoare noi, float32 și float16, de mai multe
    dimensiuni (inclusiv unele care nu sunt multipli de BLOCK), și îl compară cu
    `referinta_swiglu`. Verifică și că nu scrie în afara tensorului de ieșire și că nu e mult prea
    lent (prin interpretor: o limită de timp pe lansare; pe GPU: viteza față de un kernel de
    referință).

    Primește și o funcție care lansează singură kernel-ul: `kernel_swiglu[grila]` sau
    `f(a, b, iesire, n, BLOCK)` (cu grila ei), ori `f(a, b)` care întoarce rezultatul, ca
    `lant_triton`; atunci verifică în plus că rezultatul vine dintr-un singur kernel Triton."""

    pe_interpretor = _pe_interpretor()
    pe_gpu = torch.cuda.is_available() and not pe_interpretor

    def corp():
        if triton is None:
            raise GresealaCursant(
                "Pachetul triton nu e instalat pe această mașină (nu există pentru macOS și Windows): "
                "exercițiul cere Linux sau Colab."
            )
        if kernel is None:
            raise GresealaCursant("Ai dat None: scrie kernel-ul și dă-i numele, fără paranteze.")
        mod = _mod_de_lansare(kernel)
        dispozitiv = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        aleator = generator_aleator()
        generator = torch.Generator().manual_seed(aleator.getrandbits(62))

        def lansare_pentru(date: _Date):
            if mod == "kernel":
                return lambda: kernel[(triton.cdiv(date.n, date.bloc),)](date.a, date.b, date.iesire, date.n, date.bloc)
            if mod == "lansare":
                return lambda: kernel(date.a, date.b, date.iesire, date.n, date.bloc)
            return lambda: kernel(date.a, date.b)

        cazuri = _cazuri_2(aleator, pe_gpu)
        tipuri_trecute: set = set()
        for n, bloc, tip in cazuri:
            date = _Date.noi(n, bloc, tip, dispozitiv, generator)
            lansari_sonda = []
            if mod != "kernel":
                lansari_sonda = _sondeaza(lansare_pentru(date), date, mod, tipuri_trecute)
                acoperire = _acoperire(lansari_sonda)
                if acoperire is not None and acoperire[2] > date.n + max(date.n, 1024):
                    if acoperire[2] > date.n + 2**22:
                        raise GresealaCursant(
                            f"Grila ta pornește {cu_substantiv(acoperire[0], 'program', 'programe')} cu "
                            f"BLOCK = {acoperire[1]} pentru n = {format_numar(n)}: mult mai multe elemente decât "
                            "are tensorul. Grila potrivită e (triton.cdiv(n, BLOCK),)."
                        )
                    date = _Date.noi(n, bloc, tip, dispozitiv, generator, dupa=acoperire[2] + 2 * bloc)
                date.reseteaza()
            lansare = lansare_pentru(date)
            if pe_gpu:
                limita, mesaj = LIMITA_LANSARE_GPU_S, (
                    f"Kernel-ul tău n-a terminat pe GPU în {format_timp(LIMITA_LANSARE_GPU_S)} pentru "
                    f"{date.descriere(mod == 'kernel')}: nu se oprește. După asta, repornește kernel-ul Jupyter."
                )
            else:
                bloc_ref = bloc if mod == "kernel" else 1024
                t_ref = _timp_referinta(date, bloc_ref) if pe_interpretor else 0.0
                limita = max(LIMITA_MINIMA_CPU_S, FACTOR_LENT_CPU * t_ref)
                mesaj = _mesaj_lent(date, limita, t_ref, mod, lansari_sonda)
            pointer = date.iesire.data_ptr()
            valoare, lansari = _ruleaza(lansare, date, mod, kernel, tipuri_trecute, limita, mesaj, pe_gpu=pe_gpu)
            _verifica_iesirea(valoare, date, mod, lansari, pointer)
            tipuri_trecute.add(tip)
        viteza = _verifica_viteza_gpu(lansare_pentru, mod, kernel, generator, dispozitiv) if pe_gpu else ""
        unde = "pe GPU" if pe_gpu else "prin interpretorul Triton, pe CPU"
        forma = {
            "kernel": "Kernel-ul tău dă",
            "lansare": "Kernel-ul tău, lansat cu grila ta, dă",
            "functie": "Funcția ta, cu un singur kernel Triton, dă",
        }[mod]
        margini = "" if mod == "functie" else ", și nu scrie în afara ieșirii"
        return (
            f"{forma} aceleași valori ca eager pe {cu_substantiv(len(cazuri), 'dimensiune', 'dimensiuni')}, în "
            f"float32 și float16, inclusiv unele care nu sunt multipli de BLOCK{margini} (rulat {unde}).{viteza}"
        )

    return verificare("Exercițiul 2", corp, limita_s=LIMITA_2_GPU_S if pe_gpu else LIMITA_2_CPU_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 3: cine câștigă din fuziune, și cât
# ---------------------------------------------------------------------------------------------


def functia_A(x, y):
    return torch.relu(x)


def functia_B(x, y):
    return ((x - 1) * 2).abs().sqrt() + 1


def functia_C(x, y):
    return x @ y


def functia_D(x, y):
    return (x * y).sum()


def functia_E(x, y):
    return x * 2 + y


FUNCTII_DE_PREZIS = {
    "A": functia_A,
    "B": functia_B,
    "C": functia_C,
    "D": functia_D,
    "E": functia_E,
}

#: Accelerarea pe care o prezice numărul de drumuri la cămară (tensori mari, pe GPU).
ACCELERARI_ASTEPTATE = {"A": 1.0, "B": 5.0, "C": 1.0, "D": 2.0, "E": 5 / 3}

#: Abaterea acceptată față de model: „cam de câte ori”, aproximativ o treime.
_INTERVAL_3 = (0.75, 1.34)
LIMITA_3_S = 10.0

_EXPLICATII_3 = {
    "A": "o singură operație e deja un singur kernel: citește x, scrie rezultatul. Nimic de fuzionat (≈1×).",
    "B": "cinci operații punctuale: eager mută 5 × 2 = 10 tensori, fuzionat 2 (citește x, scrie "
    "rezultatul) → ≈5×.",
    "C": "un produs de matrice mare e limitat de calcul și e deja un singur kernel (cuBLAS); "
    "Inductor nu are ce fuziona (≈1×).",
    "D": "eager: înmulțirea citește x și y și scrie produsul (3 tensori), suma îl citește încă o dată "
    "(1) → 4 tensori; fuzionat: citește x și y (2), scrie un singur număr → ≈2×.",
    "E": "eager: x * 2 mută 2 tensori, + y mută 3 → 5; fuzionat: citește x și y, scrie rezultatul → 3. "
    "5 / 3 ≈ 1,7×.",
}


def intrari_pentru(litera: str, numar_elemente: int, dispozitiv) -> tuple[torch.Tensor, torch.Tensor]:
    """Intrările cu care se măsoară funcția `litera`: doi vectori de `numar_elemente`, sau două
    matrice pătrate cu cam tot atâtea elemente pentru produsul de matrice (C)."""
    if litera == "C":
        latura = max(64, int(math.isqrt(numar_elemente)) // 64 * 64)
        forma = (latura, latura)
    else:
        forma = (numar_elemente,)
    return (torch.randn(forma, device=dispozitiv), torch.randn(forma, device=dispozitiv))


def exercitiul_3(predictii) -> Rezultat:
    """Compară accelerările prezise {litera: factor} cu cele date de numărul de drumuri la
    cămară; acceptă o abatere de aproximativ o treime („cam de câte ori”)."""

    def corp():
        if not isinstance(predictii, dict):
            raise GresealaCursant(
                f"Trebuia un dicționar {{'A': factor, 'B': factor, ...}}, dar am primit {type(predictii).__name__}."
            )
        lipsa = [litera for litera in FUNCTII_DE_PREZIS if litera not in predictii]
        if lipsa:
            mici = [litera for litera in lipsa if litera.lower() in predictii]
            sfat = " Cheile sunt literele mari, ca în enunț." if mici else ""
            raise GresealaCursant(f"Lipsesc predicțiile pentru: {', '.join(lipsa)}.{sfat}")
        gresite = []
        for litera, asteptat in ACCELERARI_ASTEPTATE.items():
            if predictii[litera] is None:
                raise GresealaCursant(f"Încă n-ai completat predicția pentru funcția {litera} (e None).")
            prezis = cere_numar(predictii[litera], f"funcția {litera}")
            if prezis <= 0:
                raise GresealaCursant(
                    f"Pentru {litera} ai scris {_descrie_numar(prezis)}: o accelerare e un factor pozitiv "
                    "(1 = la fel de rapid)."
                )
            if not (asteptat * _INTERVAL_3[0] <= prezis <= asteptat * _INTERVAL_3[1]):
                factor = cu_unitate(prezis, "×") if prezis < 1e6 else "peste un milion de ori"
                gresite.append(f"{litera}: ai prezis {factor}; {_EXPLICATII_3[litera]}")
        if gresite:
            raise GresealaCursant("Aceste predicții nu se potrivesc cu numărul de drumuri la cămară:\n" + "\n".join(gresite))
        return (
            "Ai numărat drumurile la cămară ca un compilator. Mai jos, măsurătoarea îți arată cât de "
            "aproape e realitatea de acest model."
        )

    return verificare("Exercițiul 3", corp, limita_s=LIMITA_3_S)
