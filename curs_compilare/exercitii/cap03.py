"""Verificările exercițiilor din capitolul 03 (fuziunea kernel-urilor)."""

from __future__ import annotations

import inspect
import math

import torch

from ..cifre import cu_unitate, format_numar
from .baza import GresealaCursant, Rezultat, apeleaza, cere_numar, compara_tensori, verificare

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
    2: "Ai uitat o intrare: kernel-ul fuzionat citește și x, și y, apoi scrie z.",
    10: "Ai dat aceeași valoare ca eager: kernel-ul fuzionat nu mai scrie t1, t2, t3.",
    24: "Ai numărat biți, nu octeți (ai înmulțit cu 8 în plus).",
}


def _motiv(tensori_pe_element: float, motive: dict, implicit: str) -> str:
    """Explicația greșelii recunoscute după numărul de tensori mutați pe element."""
    return next((m for k, m in motive.items() if math.isclose(tensori_pe_element, k, rel_tol=1e-9)), implicit)


def _pereche_octeti(rezultat, n, octeti_pe_element):
    if not isinstance(rezultat, (tuple, list)) or len(rezultat) != 2:
        raise GresealaCursant(
            f"Funcția trebuie să întoarcă o pereche (octeti_eager, octeti_fuzionat); "
            f"pentru n={n} a întors {rezultat!r}."
        )
    return (
        cere_numar(rezultat[0], "octeții eager"),
        cere_numar(rezultat[1], "octeții versiunii fuzionate"),
    )


def exercitiul_1(octeti_mutati) -> Rezultat:
    """Verifică `octeti_mutati(n, octeti_pe_element) -> (eager, fuzionat)` pentru lanțul
    `torch.sigmoid(x * 2.0 + y) * x`, cu x și y de câte n elemente."""

    def corp():
        cazuri = [(1000, 4), (4096, 2), (12345, 4), (7, 8)]
        valori = {caz: _pereche_octeti(apeleaza(octeti_mutati, *caz), *caz) for caz in cazuri}
        (n0, e0) = cazuri[0]
        eager0, fuzionat0 = valori[cazuri[0]]
        # 1. proporționalitatea cu n și cu octeti_pe_element
        for (n, e), (eager, fuzionat) in valori.items():
            for nume, obtinut, baza in (("eager", eager, eager0), ("fuzionat", fuzionat, fuzionat0)):
                if math.isclose(obtinut, baza / (n0 * e0) * n * e, rel_tol=1e-9):
                    continue
                if e != e0 and math.isclose(obtinut, baza / n0 * n, rel_tol=1e-9):
                    raise GresealaCursant(
                        f"Rezultatul {nume} nu se schimbă când un element are {e} octeți în loc de {e0}: "
                        "ai numărat elemente, nu octeți. Înmulțește cu octeti_pe_element."
                    )
                raise GresealaCursant(
                    f"Pentru n={n}, octeti_pe_element={e}, rezultatul {nume} e {format_numar(obtinut)}: octeții "
                    "trebuie să fie proporționali cu n × octeti_pe_element (fiecare drum la cămară "
                    "mută un tensor întreg)."
                )
        eager_pe_element = eager0 / (n0 * e0)
        fuzionat_pe_element = fuzionat0 / (n0 * e0)
        # 2. eager, apoi 3. fuzionat: greșelile tipice au câte un număr de tensori recognoscibil
        if not math.isclose(eager_pe_element, _EAGER_PE_ELEMENT, rel_tol=1e-9):
            motiv = _motiv(eager_pe_element, _MOTIVE_EAGER, f"Ai {format_numar(eager_pe_element)} tensori mutați pe element în loc de 10.")
            raise GresealaCursant(f"Octeții eager nu sunt corecți. {motiv}\n{_DETALIU_EAGER}")
        if not math.isclose(fuzionat_pe_element, _FUZIONAT_PE_ELEMENT, rel_tol=1e-9):
            motiv = _motiv(fuzionat_pe_element, _MOTIVE_FUZIONAT, f"Ai {format_numar(fuzionat_pe_element)} tensori mutați pe element.")
            raise GresealaCursant(
                f"Octeții versiunii fuzionate nu sunt corecți. {motiv} Un kernel fuzionat citește "
                "fiecare intrare o dată și scrie doar rezultatul final: 3 tensori."
            )
        return (
            "Eager mută 10 tensori, versiunea fuzionată 3: de 3,3 ori mai puțini octeți. Pe un "
            "tensor mare, limitat de memorie, cam de atâtea ori ar trebui să scadă și timpul."
        )

    return verificare("Exercițiul 1", corp)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: un kernel Triton fuzionat, scris de mână
# ---------------------------------------------------------------------------------------------


def referinta_swiglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Ce trebuie să calculeze kernel-ul: silu(a) · b = a · sigmoid(a) · b (poarta din SwiGLU)."""
    return a * torch.sigmoid(a) * b


_SANTINELA = 12345.0
# (număr de elemente, BLOCK): și dimensiuni care nu sunt multipli de bloc
_CAZURI_2 = ((1, 128), (1000, 256), (1024, 256), (1025, 256), (4097, 1024), (100_003, 1024))


def _clase_kernel_triton() -> tuple:
    from triton.runtime.jit import KernelInterface

    return (KernelInterface,)


def _parametri_kernel(kernel) -> list[str]:
    functie = getattr(kernel, "fn", None)
    while functie is not None and not inspect.isfunction(functie):  # autotune/heuristics
        functie = getattr(functie, "fn", None)
    if functie is None:
        return []
    return list(inspect.signature(functie).parameters)


def _lanseaza(kernel, n, bloc, dispozitiv, generator):
    import triton

    a_tot = torch.randn(n + bloc, generator=generator).to(dispozitiv)
    b_tot = torch.randn(n + bloc, generator=generator).to(dispozitiv)
    iesire_tot = torch.full((n + bloc,), _SANTINELA, device=dispozitiv)
    a, b, iesire = a_tot[:n], b_tot[:n], iesire_tot[:n]
    try:
        kernel[(triton.cdiv(n, bloc),)](a, b, iesire, n, BLOCK=bloc)
    except Exception as eroare:  # compilare sau execuție
        prima_linie = str(eroare).strip().splitlines()
        detaliu = prima_linie[-1] if prima_linie else type(eroare).__name__
        raise GresealaCursant(
            f"Kernel-ul n-a rulat pentru n={n}, BLOCK={bloc}: {type(eroare).__name__}: {detaliu[:300]}. "
            "În corpul unui kernel Triton poți folosi doar tl.* și aritmetică pe blocuri: "
            "tl.program_id, tl.arange, tl.load, tl.store, tl.sigmoid sau tl.exp."
        ) from None
    if dispozitiv.type == "cuda":
        torch.cuda.synchronize()
    return a, b, iesire, iesire_tot[n:]


def exercitiul_2(kernel) -> Rezultat:
    """Lansează kernel-ul Triton al cursantului, `kernel(a_ptr, b_ptr, iesire_ptr, n, BLOCK)`,
    pe intrări aleatoare noi, de mai multe dimensiuni (inclusiv unele care nu sunt multipli de BLOCK), și îl compară
    cu `referinta_swiglu`. Verifică și că nu scrie în afara tensorului de ieșire."""

    def corp():
        try:
            clase = _clase_kernel_triton()
        except ImportError:
            raise GresealaCursant(
                "Pachetul triton nu e instalat pe această mașină (nu există pentru macOS și Windows): "
                "exercițiul cere Linux sau Colab."
            ) from None
        if kernel is None:
            raise GresealaCursant("Ai dat None: scrie kernel-ul și dă-i numele, fără paranteze.")
        if not isinstance(kernel, clase):
            raise GresealaCursant(
                f"Am primit {type(kernel).__name__}, nu un kernel Triton. Pune @triton.jit deasupra "
                "lui `def` și scrie corpul cu tl.load / tl.store, nu cu operații torch."
            )
        parametri = _parametri_kernel(kernel)
        if len(parametri) != 5 or parametri[-1] != "BLOCK":
            raise GresealaCursant(
                "Kernel-ul trebuie să aibă exact parametrii (a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr); "
                f"al tău are ({', '.join(parametri)})."
            )
        dispozitiv = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        generator = torch.Generator().manual_seed(torch.seed() % 2**31)
        for n, bloc in _CAZURI_2:
            a, b, iesire, rest = _lanseaza(kernel, n, bloc, dispozitiv, generator)
            if not bool((rest == _SANTINELA).all()):
                raise GresealaCursant(
                    f"Pentru n={n}, BLOCK={bloc}, kernel-ul a scris după sfârșitul tensorului de ieșire. "
                    "Ultimul bloc iese din tensor când n nu e multiplu de BLOCK: calculează "
                    "mask = offsets < n și dă-l lui tl.store (și lui tl.load)."
                )
            if bool((iesire == _SANTINELA).all()):
                raise GresealaCursant(
                    "Kernel-ul n-a scris nimic în ieșire: încă n-ai scris soluția? Calculează rezultatul "
                    "și scrie-l cu tl.store(iesire_ptr + offsets, rezultat, mask=mask)."
                )
            asteptat = referinta_swiglu(a, b)
            if not torch.allclose(iesire, asteptat, rtol=1e-4, atol=1e-5):
                bloc_intai = min(n, bloc)
                primul_bun = torch.allclose(iesire[:bloc_intai], asteptat[:bloc_intai], rtol=1e-4, atol=1e-5)
                if primul_bun and n > bloc:
                    raise GresealaCursant(
                        f"Pentru n={n}, BLOCK={bloc}, doar primul bloc e corect. Fiecare program trebuie "
                        "să-și ia propriul bloc: offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)."
                    )
                if bool((iesire == _SANTINELA).any()):
                    raise GresealaCursant(
                        f"Pentru n={n}, BLOCK={bloc}, unele elemente n-au fost scrise deloc: fiecare "
                        "program trebuie să scrie tot blocul lui (offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))."
                    )
                if torch.allclose(iesire, torch.sigmoid(a) * b, rtol=1e-4, atol=1e-5):
                    raise GresealaCursant("Ai calculat sigmoid(a) · b: lipsește înmulțirea cu a (silu(a) = a · sigmoid(a)).")
                if torch.allclose(iesire, a * torch.sigmoid(a), rtol=1e-4, atol=1e-5):
                    raise GresealaCursant("Ai calculat silu(a), dar n-ai înmulțit cu b.")
                compara_tensori(iesire, asteptat, f"n={n}, BLOCK={bloc}", rtol=1e-4, atol=1e-5)
        unde = "pe GPU" if dispozitiv.type == "cuda" else "prin interpretorul Triton, pe CPU"
        return (
            f"Kernel-ul tău dă aceleași valori ca eager pe {len(_CAZURI_2)} dimensiuni, inclusiv "
            f"unele care nu sunt multipli de BLOCK, și nu scrie în afara ieșirii (rulat {unde})."
        )

    return verificare("Exercițiul 2", corp)


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
            raise GresealaCursant("Trebuia un dicționar {'A': factor, 'B': factor, ...}.")
        lipsa = [litera for litera in FUNCTII_DE_PREZIS if litera not in predictii]
        if lipsa:
            raise GresealaCursant(f"Lipsesc predicțiile pentru: {', '.join(lipsa)}.")
        gresite = []
        for litera, asteptat in ACCELERARI_ASTEPTATE.items():
            if predictii[litera] is None:
                raise GresealaCursant(f"Încă n-ai completat predicția pentru funcția {litera} (e None).")
            prezis = cere_numar(predictii[litera], f"funcția {litera}")
            if prezis <= 0:
                raise GresealaCursant(f"Pentru {litera} ai scris {format_numar(prezis)}: o accelerare e un factor pozitiv (1 = la fel de rapid).")
            if not (asteptat * 0.75 <= prezis <= asteptat * 1.34):
                gresite.append(f"{litera}: ai prezis {cu_unitate(prezis, '×')}; {_EXPLICATII_3[litera]}")
        if gresite:
            raise GresealaCursant("Aceste predicții nu se potrivesc cu numărul de drumuri la cămară:\n" + "\n".join(gresite))
        return (
            "Ai numărat drumurile la cămară ca un compilator. Mai jos, măsurătoarea îți arată cât de "
            "aproape e realitatea de acest model."
        )

    return verificare("Exercițiul 3", corp)
