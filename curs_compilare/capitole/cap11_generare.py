"""Uneltele capitolului 11 — generarea textului la viteza memoriei: cache-ul KV static, CUDA
Graphs și greutăți int8 sub compilare.

Celulele capitolului arată lecția (bucla naivă, scrierea în cache-ul static, `torch.compile` cu
`fullgraph=True`, cuantizarea unei matrice); de aici vine contabilitatea din jurul lor:

- `marimi_capitol` — dimensiunile capitolului, după mașină și profil: modelul mic, antrenat
  (calitatea), modelul de viteză, cu greutăți aleatoare (pe un H200, peste un miliard de
  parametri, în bfloat16; pe un T4, în float16), mărimile și loturile baleiate;
- `antreneaza_modelul` — modelul cursului, antrenat câteva secunde pe ciclul ascuns din
  capitolul 06 (`DateCiclu`), ca să prezică ceva;
- `DecodorCrescator` — cache-ul KV care crește cu `torch.cat` (o formă nouă la fiecare jeton);
  `recompilari_cache_crescut` — recompilările și garda care cade, cu uneltele capitolului 02;
- `scrie_in_cache`, `DecodorStatic`, `genereaza` — cache-ul KV static, prealocat la lungimea
  maximă, scris la poziția dată de un tensor, cu pozițiile nescrise mascate; umplerea
  (*prefill*) și decodarea (*decode*) sunt aceeași funcție, compilată separat;
- `numara_reluari_cuda` — reluările grafurilor CUDA, numărate în urma profilerului
  (`cudaGraphLaunch`), pe GPU;
- `Octeti`, `octeti_modelului`, `masoara_viteza`, `masoara_marimile`, `masoara_loturile`,
  `exploreaza_plafonul` — plafonul: octeții citiți la fiecare jeton față de lățimea de bandă a
  copierii, măsurată pe mașina ta (capitolul 00), pe mărimi de model și pe loturi;
- `LiniarInt8`, `cuantizeaza_modelul`, `codul_int8`, `masoara_int8`, `calitatea_int8` — greutăți
  int8 cu o scală pe fiecare canal de ieșire: ce trebuie să vadă compilatorul ca un singur kernel
  să citească direct int8, viteza și costul în calitate.

Pe GPU, decodarea se compilează cu `mode="reduce-overhead"` (grafuri CUDA, capitolul 04); pe
procesor, modul implicit (acolo `reduce-overhead` rulează același cod, fără grafuri CUDA).
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from .. import cifre
from ..cifre import are_nevoie_de_de, cu_substantiv, cu_unitate, format_numar, format_octeti, format_procent, format_timp
from ..concluzii import concluzie_accelerare
from ..masurare import Comparatie, compara, masoara, timp_prima_apelare
from ..masurare_compilare import invelis_nou
from ..mediu import dimensiune, gpu_mare, profil_curent, sincronizeaza
from ..modele import ConfiguratieTransformer, ReteaTransformer

__all__ = [
    "TINTA_PLAFON",
    "TINTA_FATA_DE_CRESCUT",
    "TINTA_INT8",
    "PARAMETRI_MINIM_TINTA",
    "Marimi",
    "marimi_capitol",
    "mod_decodare",
    "jetoane_pe_s",
    "model_de_viteza",
    "ModelAntrenat",
    "antreneaza_modelul",
    "arata_antrenarea",
    "prompt_din_ciclu",
    "DecodorCrescator",
    "genereaza_crescator",
    "scrie_in_cache",
    "CacheKV",
    "DecodorStatic",
    "genereaza",
    "masoara_eager",
    "arata_eager",
    "Recompilari",
    "recompilari_cache_crescut",
    "arata_recompilarile",
    "numara_reluari_cuda",
    "CompilareDecodare",
    "compileaza_decodarea",
    "arata_compilarea",
    "Octeti",
    "octeti_modelului",
    "plafon_jetoane",
    "varf_calcul",
    "bucla_naiva",
    "bucla_crescatoare",
    "bucla_statica",
    "Viteza",
    "masoara_viteza",
    "masoara_variantele",
    "VARIANTA_COMPILATA",
    "VARIANTA_FARA_GRAFURI",
    "unde_se_duce_timpul",
    "arata_viteza",
    "masoara_marimile",
    "arata_marimile",
    "masoara_loturile",
    "arata_loturile",
    "exploreaza_plafonul",
    "LiniarInt8",
    "cuantizeaza_greutatea",
    "cuantizeaza_modelul",
    "AnalizaInt8",
    "analizeaza_codul_int8",
    "codul_int8",
    "arata_codul_int8",
    "masoara_int8",
    "arata_int8",
    "Calitate",
    "calitatea_int8",
    "arata_calitatea",
    "ce_arata_doar_gpu",
]

#: Ținta capitolului pe un GPU mare: decodarea compilată cu cache-ul static citește octeții unui
#: jeton cu cel puțin atât din lățimea de bandă a copierii măsurată.
TINTA_PLAFON = 0.80
#: A doua țintă pe un GPU mare: decodarea compilată cu cache-ul static, de cel puțin atâtea ori mai
#: rapidă decât bucla eager cu cache-ul care crește.
TINTA_FATA_DE_CRESCUT = 4.0
#: A treia țintă pe un GPU mare: greutățile int8, de cel puțin atâtea ori mai rapide decât bfloat16.
TINTA_INT8 = 1.5
#: Țintele se judecă doar pe un model cu cel puțin atâția parametri: acolo greutățile domină octeții.
PARAMETRI_MINIM_TINTA = 1e9


def _unitati_jetoane(valoare: float) -> str:
    """„jetoane/s” cu „de” unde îl cere româna („25 de jetoane/s”, „12,5 jetoane/s”)."""
    rotunjit = float(format_numar(valoare).replace(" ", "").replace(",", "."))
    return "de jetoane/s" if are_nevoie_de_de(rotunjit) else "jetoane/s"


def _timp_minim() -> float:
    """Cât se cronometrează, cel puțin, fiecare variantă (`compara`): mai puțin în profilul rapid."""
    return dimensiune(gpu=0.3, cpu=0.3, rapid=0.1)


def jetoane_pe_s(valoare: float) -> str:
    """Un debit de generare scris ca în curs: „1 234 de jetoane/s”, „12,5 jetoane/s”."""
    return f"{format_numar(valoare)} {_unitati_jetoane(valoare)}"


# ---------------------------------------------------------------------------------------------
# Dimensiunile
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Marimi:
    """Dimensiunile capitolului pe mașina ta.

    - `calitate`: modelul mic, antrenat pe ciclul ascuns (secțiunile 1–3 și calitatea int8), cu
      `pasi_antrenare` pași, cel mult `secunde_antrenare` secunde, un prompt de `prompt_calitate`
      jetoane și `jetoane_calitate` jetoane generate;
    - `viteza`: modelul de viteză, cu greutăți aleatoare (viteza nu depinde de valori), decodat de
      la poziția `prompt` câte `jetoane_noi` jetoane, cu cache-ul static prealocat la
      `viteza.lungime` poziții;
    - `marimi_model`: (lățime, straturi) pentru baleiajul pe mărimea modelului; `loturi`: loturile;
    - `tip`: tipul de date al decodării (float32 pe procesor, bfloat16 pe un GPU care îl are,
      float16 pe un T4)."""

    calitate: ConfiguratieTransformer
    pasi_antrenare: int
    secunde_antrenare: float
    prompt_calitate: int
    jetoane_calitate: int
    viteza: ConfiguratieTransformer
    prompt: int
    jetoane_noi: int
    marimi_model: tuple[tuple[int, int], ...]
    loturi: tuple[int, ...]
    tip: torch.dtype
    dispozitiv: str

    @property
    def nume_tip(self) -> str:
        return str(self.tip).removeprefix("torch.")

    def descriere(self) -> str:
        c, v = self.calitate, self.viteza
        parametri_viteza = _parametri_configuratie(v)
        return (
            f"Modelul antrenat: {cu_substantiv(c.nr_straturi, 'strat', 'straturi')} de lățime {c.dim_model}, vocabular de "
            f"{cu_substantiv(c.vocabular, 'jeton', 'jetoane')}, cel mult {cu_substantiv(self.pasi_antrenare, 'pas', 'pași')} "
            f"de antrenare. Modelul de viteză (greutăți aleatoare): {cu_substantiv(v.nr_straturi, 'strat', 'straturi')} de lățime "
            f"{format_numar(v.dim_model)}, vocabular de {cu_substantiv(v.vocabular, 'jeton', 'jetoane')}, "
            f"{_parametri_text(parametri_viteza)}, în {self.nume_tip}; cache-ul static are "
            f"{cu_substantiv(v.lungime, 'poziție', 'poziții')}, decodarea pornește de la poziția {format_numar(self.prompt)} și "
            f"generează {cu_substantiv(self.jetoane_noi, 'jeton', 'jetoane')}; loturile: "
            + ", ".join(format_numar(l) for l in self.loturi) + "."
        )


def _parametri_configuratie(c: ConfiguratieTransformer) -> int:
    """Parametrii unui `ReteaTransformer` cu configurația `c`, socotiți din forme (fără să-l construiești)."""
    d = c.dim_model
    strat = (2 * 2 * d) + (3 * d * d + 3 * d) + (d * d + d) + (4 * d * d + 4 * d) + (4 * d * d + d)
    return c.vocabular * d + c.lungime * d + c.nr_straturi * strat + 2 * d + (d * c.vocabular + c.vocabular)


def _parametri_text(n: int) -> str:
    """„1,41 miliarde de parametri”, „1 miliard de parametri”, „16,8 milioane de parametri”."""
    for factor, singular, plural in ((1e9, "miliard", "miliarde"), (1e6, "milion", "milioane")):
        if n >= factor:
            valoare = format_numar(n / factor)
            return f"{valoare} {singular if valoare == '1' else plural} de parametri"
    return cu_substantiv(n, "parametru", "parametri")


def marimi_capitol(mediu=None) -> Marimi:
    """Dimensiunile capitolului pentru mașina descrisă de `mediu` (`afiseaza_mediul()`) și profilul
    curent. Pe un GPU cu cel puțin 40 GiB și bfloat16 (un H200): modelul de viteză are 5 straturi de
    lățime 4 096 (lățimea unui model de 7 miliarde) și vocabularul lui GPT-2: 1,2 miliarde de parametri,
    2,4 GB în bfloat16, greutăți care domină octeții citiți. Lat și puțin adânc, nu 24 de straturi de
    2 048: plafonul pe jeton depinde doar de octeți, iar compilarea parcurge graful strat cu strat (pe
    un H100, capitolul cu 24 de straturi n-a terminat în 9 minute). Pe un GPU mai mic sau fără bfloat16
    (un T4): 8 straturi de lățime 1 024, în float16. Pe
    procesor: 4 straturi de lățime 512, în float32, ca greutățile (67 MB) să nu încapă în cache-urile
    procesorului. În profilul rapid (testele), totul e minuscul."""
    pe_gpu = mediu.are_gpu if mediu is not None else torch.cuda.is_available()
    bf16 = bool(getattr(mediu, "bf16_nativ", False)) if mediu is not None else pe_gpu
    mare = pe_gpu and gpu_mare() and bf16
    tip = (torch.bfloat16 if bf16 else torch.float16) if pe_gpu else torch.float32
    calitate = ConfiguratieTransformer(
        vocabular=dimensiune(gpu=512, cpu=256, rapid=64),
        dim_model=dimensiune(gpu=128, cpu=64, rapid=32),
        nr_capete=dimensiune(gpu=4, cpu=4, rapid=2),
        nr_straturi=dimensiune(gpu=2, cpu=2, rapid=1),
        lungime=dimensiune(gpu=128, cpu=64, rapid=32),
        marime_lot=16,
    )
    if mare:
        latime, straturi, loturi = 4096, 5, (1, 8, 32, 128)
        marimi_model = ((1024, 2), (2048, 4), (4096, 5))
    else:
        latime, straturi, loturi = 1024, 8, (1, 8, 32)
        marimi_model = ((512, 2), (768, 4), (1024, 8))
    prompt = dimensiune(gpu=128, cpu=16, rapid=8)
    jetoane = dimensiune(gpu=128, cpu=24, rapid=8)
    # cache-ul static e prealocat la lungimea maximă, aici promptul plus jetoanele noi
    viteza = ConfiguratieTransformer(
        vocabular=dimensiune(gpu=50304, cpu=4096, rapid=256),
        dim_model=dimensiune(gpu=latime, cpu=512, rapid=64),
        nr_capete=dimensiune(gpu=latime // 128, cpu=8, rapid=2),
        nr_straturi=dimensiune(gpu=straturi, cpu=4, rapid=2),
        lungime=prompt + jetoane,
        marime_lot=1,
    )
    return Marimi(
        calitate=calitate,
        pasi_antrenare=dimensiune(gpu=600, cpu=400, rapid=100),
        secunde_antrenare=dimensiune(gpu=60.0, cpu=60.0, rapid=6.0),
        prompt_calitate=8,
        jetoane_calitate=dimensiune(gpu=96, cpu=40, rapid=16),
        viteza=viteza,
        prompt=prompt,
        jetoane_noi=jetoane,
        marimi_model=dimensiune(gpu=marimi_model, cpu=((128, 2), (256, 4), (512, 4)), rapid=((32, 1), (64, 2))),
        loturi=dimensiune(gpu=loturi, cpu=(1, 4, 16), rapid=(1, 4)),
        tip=tip,
        dispozitiv="cuda" if pe_gpu else "cpu",
    )


def mod_decodare(pe_gpu: bool | None = None) -> str | None:
    """Modul de compilare al decodării: `"reduce-overhead"` pe GPU (grafuri CUDA), None (modul
    implicit) pe procesor, unde `reduce-overhead` ar rula același cod, fără grafuri CUDA."""
    if pe_gpu is None:
        pe_gpu = torch.cuda.is_available()
    return "reduce-overhead" if pe_gpu else None


def model_de_viteza(configuratie: ConfiguratieTransformer, tip: torch.dtype, dispozitiv, samanta: int = 0) -> ReteaTransformer:
    """Un `ReteaTransformer` cu greutăți aleatoare (inițializarea modelului), în `tip`, pe `dispozitiv`,
    în modul `eval`, construit direct pe dispozitiv (un model de un miliard de parametri nu trece întâi
    prin memoria procesorului). Viteza decodării nu depinde de valorile greutăților."""
    generator_vechi = torch.random.get_rng_state()
    torch.manual_seed(samanta)
    if torch.device(dispozitiv).type == "cuda":
        torch.cuda.manual_seed(samanta)
    with torch.device(dispozitiv):
        model = ReteaTransformer(configuratie)
    torch.random.set_rng_state(generator_vechi)
    return model.to(tip).eval().requires_grad_(False)


# ---------------------------------------------------------------------------------------------
# 1. Modelul antrenat: ciclul ascuns din capitolul 06
# ---------------------------------------------------------------------------------------------


@dataclass
class ModelAntrenat:
    """Modelul antrenat pe ciclul ascuns (`DateCiclu` din capitolul 06): modelul (în `eval`, pe
    dispozitivul capitolului, în float32), datele, pierderile pe pași, secundele și partea din
    predicțiile următorului jeton care respectă regula, pe secvențe nevăzute."""

    model: ReteaTransformer
    date: object
    pierderi: list
    secunde: float
    acuratete: float
    pasi_ceruti: int

    @property
    def pasi(self) -> int:
        return len(self.pierderi)

    @property
    def a_invatat(self) -> bool:
        """Adevărat când modelul prezice următorul jeton corect în cel puțin 90% din cazuri."""
        return self.acuratete >= 0.9


def antreneaza_modelul(marimi: Marimi, samanta: int = 0) -> ModelAntrenat:
    """Antrenează, eager, un `ReteaTransformer` cu configurația `marimi.calitate` pe ciclul ascuns
    din capitolul 06 (după jetonul `a` vine mereu același jeton), cu AdamW, cel mult
    `marimi.pasi_antrenare` pași și cel mult `marimi.secunde_antrenare` secunde. Apoi îl pune în
    `eval` și măsoară cât de des prezice corect următorul jeton pe secvențe nevăzute."""
    from .cap06_modelul_intreg import DateCiclu
    from ..modele import pierdere

    c = marimi.calitate
    torch.manual_seed(samanta)
    model = ReteaTransformer(c).to(marimi.dispozitiv)
    date = DateCiclu(c, marimi.dispozitiv, samanta=samanta)
    optimizator = torch.optim.AdamW(model.parameters(), lr=3e-3)
    generator = torch.Generator().manual_seed(samanta + 1)
    pierderi = []
    start = time.perf_counter()
    with torch.enable_grad():
        for _ in range(marimi.pasi_antrenare):
            intrari, tinte = date.lot(generator)
            valoare = pierdere(model, intrari, tinte)
            optimizator.zero_grad(set_to_none=True)
            valoare.backward()
            optimizator.step()
            pierderi.append(float(valoare.detach()))
            if time.perf_counter() - start > marimi.secunde_antrenare:
                break
    secunde = time.perf_counter() - start
    model.eval().requires_grad_(False)
    intrari, tinte = date.lot(torch.Generator().manual_seed(samanta + 1000))
    with torch.no_grad():
        acuratete = float((model(intrari).argmax(-1) == tinte).float().mean())
    return ModelAntrenat(model, date, pierderi, secunde, acuratete, marimi.pasi_antrenare)


def arata_antrenarea(antrenat: ModelAntrenat) -> None:
    """Ce a învățat modelul: pașii, timpul, pierderea față de ghicitul uniform și cât de des prezice
    corect următorul jeton; spune dacă a învățat regula sau nu (atunci calitatea int8 spune mai puțin)."""
    c = antrenat.model.configuratie
    uniform = math.log(c.vocabular)
    pasi = cu_substantiv(antrenat.pasi, "pas", "pași")
    oprit = "" if antrenat.pasi >= antrenat.pasi_ceruti else " (oprită de limita de timp)"
    print(f"Sarcina: ciclul ascuns din capitolul 06, prin toate cele {cu_substantiv(c.vocabular, 'jeton', 'jetoane')} ale "
          "vocabularului: după jetonul a vine mereu același jeton.")
    print(f"Antrenarea: {pasi} în {format_timp(antrenat.secunde)}{oprit}; pierderea a coborât de la "
          f"{format_numar(antrenat.pierderi[0], 3)} la {format_numar(antrenat.pierderi[-1], 3)} (ghicitul uniform ar da "
          f"ln {c.vocabular} = {format_numar(uniform, 3)}).")
    print(f"Pe secvențe nevăzute, modelul prezice corect următorul jeton în {format_procent(antrenat.acuratete, 1)} din cazuri.")
    if not antrenat.a_invatat:
        print("Modelul n-a apucat să învețe bine regula pe mașina ta (sub 90%): generările de mai jos respectă ciclul doar în "
              "parte, iar comparația de calitate din secțiunea 5 spune mai puțin decât ar spune pe un model antrenat.")
    cifre.inregistreaza("11.antrenare_s", antrenat.secunde, "s", f"antrenarea modelului mic ({pasi})", depinde_de_procesor=True)
    cifre.inregistreaza("11.antrenare_acuratete", antrenat.acuratete, "", "partea predicțiilor corecte pe secvențe nevăzute",
                        prag_absolut=0.05)


def prompt_din_ciclu(antrenat: ModelAntrenat, lungime: int, samanta: int = 7, lot: int = 1) -> torch.Tensor:
    """Un prompt de `lungime` jetoane (lot × lungime) care urmează ciclul învățat, pornit dintr-un punct ales de `samanta`."""
    return antrenat.date.secvente(lot, lungime, torch.Generator().manual_seed(samanta))


# ---------------------------------------------------------------------------------------------
# Atenția cu cache: comună decodoarelor
# ---------------------------------------------------------------------------------------------


def _qkv(strat, x: torch.Tensor):
    """Întrebările, cheile și valorile unui strat (`BlocTransformer`), ca lot × capete × n × d."""
    lot, n, canale = x.shape
    q, k, v = strat.qkv(x).split(canale, dim=-1)
    forma = (lot, n, strat.nr_capete, canale // strat.nr_capete)
    return tuple(t.view(forma).transpose(1, 2) for t in (q, k, v))


def _iesire_atentie(strat, y: torch.Tensor) -> torch.Tensor:
    lot, capete, n, d = y.shape
    return strat.proiectie(y.transpose(1, 2).reshape(lot, n, capete * d))


def _intrare(model: ReteaTransformer, jetoane: torch.Tensor, pozitii: torch.Tensor) -> torch.Tensor:
    return model.incorporare(jetoane) + model.pozitii(pozitii)


# ---------------------------------------------------------------------------------------------
# 1–2. Cache-ul care crește cu torch.cat
# ---------------------------------------------------------------------------------------------


class DecodorCrescator(nn.Module):
    """Modelul cursului (aceleași module, aceleași greutăți) cu un cache KV care **crește**: la
    fiecare pas, cheile și valorile noi se lipesc cu `torch.cat` la cele vechi. Funcțional:
    `decodor(jetoane, pozitii, cache)` întoarce (logit-urile, cache-ul nou), iar `cache` e un tuplu
    de perechi (chei, valori), câte una pe strat, de forma lot × capete × t × d. La fiecare pas, t
    crește cu numărul jetoanelor noi: o formă nouă la fiecare apel."""

    def __init__(self, model: ReteaTransformer):
        super().__init__()
        self.model = model

    def cache_gol(self, lot: int = 1, pozitii: int = 0) -> tuple:
        """Un cache cu `pozitii` poziții (zerouri), pentru fiecare strat (implicit, gol)."""
        c = self.model.configuratie
        parametru = next(self.model.parameters())
        forma = (lot, c.nr_capete, pozitii, c.dim_model // c.nr_capete)
        return tuple((torch.zeros(forma, dtype=parametru.dtype, device=parametru.device),
                      torch.zeros(forma, dtype=parametru.dtype, device=parametru.device))
                     for _ in range(c.nr_straturi))

    def forward(self, jetoane: torch.Tensor, pozitii: torch.Tensor, cache: tuple):
        m = self.model
        x = _intrare(m, jetoane, pozitii)
        nou = []
        for strat, (cache_k, cache_v) in zip(m.straturi, cache):
            q, k, v = _qkv(strat, strat.norma_atentie(x))
            k = torch.cat([cache_k, k], dim=2)  # un tensor nou, mai lung cu n poziții
            v = torch.cat([cache_v, v], dim=2)
            nou.append((k, v))
            masca = torch.arange(k.shape[2], device=k.device)[None, :] <= pozitii[:, None]
            x = x + _iesire_atentie(strat, F.scaled_dot_product_attention(q, k, v, attn_mask=masca))
            x = x + strat.feed_forward(strat.norma_ff(x))
        return m.iesire(m.norma_finala(x)), tuple(nou)


@torch.no_grad()
def genereaza_crescator(decodor: DecodorCrescator, prompt: torch.Tensor, jetoane_noi: int,
                        pas: Callable | None = None) -> torch.Tensor:
    """Generează lacom (*greedy*) `jetoane_noi` jetoane după `prompt` (lot × lungime) cu cache-ul care
    crește. Umplerea (promptul întreg) rulează cu `decodor`, eager; fiecare jeton nou, cu `pas` (implicit
    tot `decodor`; de exemplu varianta lui compilată). Întoarce promptul urmat de jetoanele noi."""
    pas = pas or decodor
    lungime = prompt.shape[1]
    pozitii = torch.arange(lungime + jetoane_noi, device=prompt.device)
    logituri, cache = decodor(prompt, pozitii[:lungime], decodor.cache_gol(prompt.shape[0]))
    jeton = logituri[:, -1:].argmax(dim=-1)
    iesire = [prompt, jeton]
    for i in range(lungime, lungime + jetoane_noi - 1):
        logituri, cache = pas(jeton, pozitii[i:i + 1], cache)
        jeton = logituri[:, -1:].argmax(dim=-1)
        iesire.append(jeton)
    return torch.cat(iesire, dim=1)


# ---------------------------------------------------------------------------------------------
# 3. Cache-ul KV static
# ---------------------------------------------------------------------------------------------


def scrie_in_cache(cache_k: torch.Tensor, cache_v: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                   pozitii: torch.Tensor) -> torch.Tensor:
    """Scrie cheile și valorile noi (lot × capete × n × d) în cache-urile statice (lot × capete × L × d),
    pe loc, la pozițiile `pozitii` (un tensor de n întregi: toate pozițiile promptului la umplere, una
    singură la decodare), și întoarce masca atenției, n × L: noua poziție p vede pozițiile 0…p. Tot ce e
    după p (încă nescris la această generare, sau rămas de la o generare de dinainte) e mascat.
    Nimic nu depinde de valoarea pozițiilor ca număr Python: un singur graf pentru toate pozițiile."""
    cache_k.index_copy_(2, pozitii, k)
    cache_v.index_copy_(2, pozitii, v)
    toate = torch.arange(cache_k.shape[2], device=pozitii.device)
    return toate[None, :] <= pozitii[:, None]


class CacheKV(nn.Module):
    """Cache-ul static al unui strat: cheile și valorile, lot × capete × L × d, prealocate o dată,
    ca tampoane (*buffers*) ale modulului. Sub `torch.compile`, tampoanele unui modul au adrese
    statice: grafurile CUDA le pot modifica pe loc, fără copii."""

    def __init__(self, lot: int, capete: int, lungime_maxima: int, dim_cap: int, tip: torch.dtype, dispozitiv):
        super().__init__()
        forma = (lot, capete, lungime_maxima, dim_cap)
        self.register_buffer("k", torch.zeros(forma, dtype=tip, device=dispozitiv), persistent=False)
        self.register_buffer("v", torch.zeros(forma, dtype=tip, device=dispozitiv), persistent=False)


class DecodorStatic(nn.Module):
    """Modelul cursului (aceleași module, aceleași greutăți) cu un cache KV **static**, prealocat la
    `lungime_maxima` poziții pentru un lot de `lot` secvențe. `decodor(jetoane, pozitii)` primește
    jetoanele noi (lot × n) și pozițiile lor (un tensor de n întregi, pe dispozitivul modelului) și
    întoarce logit-urile (lot × n × vocabular): la umplere n e lungimea promptului, la decodare 1.
    Scrierea în cache și masca le face `scrie` (implicit `scrie_in_cache`)."""

    def __init__(self, model: ReteaTransformer, lot: int = 1, lungime_maxima: int | None = None,
                 scrie: Callable | None = None):
        super().__init__()
        c = model.configuratie
        lungime_maxima = lungime_maxima or c.lungime
        if lungime_maxima > c.lungime:
            raise ValueError(f"modelul are înglobări de poziție doar pentru {c.lungime} poziții, nu {lungime_maxima}")
        parametru = next(model.parameters())
        tip = parametru.dtype if parametru.is_floating_point() else torch.float32
        tip = getattr(model, "tip_activari", tip)
        self.model = model
        self.lot = lot
        self.lungime_maxima = lungime_maxima
        self.scrie = scrie or scrie_in_cache
        self.cache = nn.ModuleList(
            CacheKV(lot, c.nr_capete, lungime_maxima, c.dim_model // c.nr_capete, tip, parametru.device)
            for _ in range(c.nr_straturi)
        )

    def forward(self, jetoane: torch.Tensor, pozitii: torch.Tensor) -> torch.Tensor:
        m = self.model
        x = _intrare(m, jetoane, pozitii)
        for strat, cache in zip(m.straturi, self.cache):
            q, k, v = _qkv(strat, strat.norma_atentie(x))
            masca = self.scrie(cache.k, cache.v, k, v, pozitii)
            x = x + _iesire_atentie(strat, F.scaled_dot_product_attention(q, cache.k, cache.v, attn_mask=masca))
            x = x + strat.feed_forward(strat.norma_ff(x))
        return m.iesire(m.norma_finala(x))

    def octeti_cache(self) -> int:
        return sum(t.numel() * t.element_size() for t in self.buffers())


@torch.no_grad()
def genereaza(umplere: Callable, decodare: Callable, prompt: torch.Tensor, jetoane_noi: int) -> torch.Tensor:
    """Generează lacom `jetoane_noi` jetoane după `prompt` (lot × lungime) cu un cache static:
    `umplere(prompt, pozitii)` scrie promptul întreg, apoi `decodare(jeton, pozitie)` scrie câte un jeton
    (pozițiile sunt felii ale unui tensor prealocat pe dispozitiv: nicio copiere de pe procesor, nicio
    sincronizare în buclă). `umplere` și `decodare` pot fi același decodor, eager, sau două variante
    compilate separat. Întoarce promptul urmat de jetoanele noi."""
    lungime = prompt.shape[1]
    pozitii = torch.arange(lungime + jetoane_noi, device=prompt.device)
    jeton = umplere(prompt, pozitii[:lungime])[:, -1:].argmax(dim=-1)
    iesire = [prompt, jeton]
    for i in range(lungime, lungime + jetoane_noi - 1):
        # logit-urile nu se păstrează: la reduce-overhead sunt tamponul static al grafului CUDA,
        # suprascris la reluarea următoare; argmax-ul e un tensor nou
        jeton = decodare(jeton, pozitii[i:i + 1])[:, -1:].argmax(dim=-1)
        iesire.append(jeton)
    return torch.cat(iesire, dim=1)


# ---------------------------------------------------------------------------------------------
# 1. Viteza eager: bucla naivă față de cache-ul care crește
# ---------------------------------------------------------------------------------------------


def _ori(factor: float) -> str:
    """„2,21 ori”, „25 de ori”: un factor urmat de „ori”, cu „de” unde îl cere româna."""
    rotunjit = float(format_numar(factor).replace(" ", "").replace(",", "."))
    return cu_substantiv(rotunjit, "dată", "ori")


def _tabel(antet: Sequence[str], randuri: Sequence[Sequence[str]]) -> str:
    latimi = [max(len(str(r[i])) for r in [antet, *randuri]) for i in range(len(antet))]
    linii = ["  ".join(str(c).ljust(l) for c, l in zip(antet, latimi)).rstrip()]
    linii += ["  ".join(str(c).ljust(l) for c, l in zip(r, latimi)).rstrip() for r in randuri]
    return "\n".join(linii)


def masoara_eager(genereaza_naiv: Callable, antrenat: ModelAntrenat, prompt: torch.Tensor,
                  lungimi: Sequence[int]) -> list[tuple[int, Comparatie]]:
    """Pentru fiecare număr de jetoane generate din `lungimi`: bucla naivă (`genereaza_naiv(model,
    prompt, n)`, din notebook) și bucla cu cache-ul care crește, eager amândouă, măsurate intercalat."""
    model = antrenat.model
    crescator = DecodorCrescator(model)
    rezultate = []
    for n in lungimi:
        with torch.no_grad():
            comparatie = compara({
                "naivă (tot prefixul)": lambda n=n: genereaza_naiv(model, prompt, n),
                "cache care crește": lambda n=n: genereaza_crescator(crescator, prompt, n),
            }, runde=5, timp_minim_s=_timp_minim(), ceas="perete")
        rezultate.append((n, comparatie))
    return rezultate


def arata_eager(rezultate: Sequence[tuple[int, Comparatie]]) -> None:
    """Tabelul și graficul jetoanelor pe secundă, eager, față de numărul de jetoane generate, și
    verdictul la cea mai lungă generare."""
    import matplotlib.pyplot as plt

    from ..grafice import arata

    nume = list(rezultate[0][1].masuratori)
    randuri = []
    for n, c in rezultate:
        randuri.append([format_numar(n)] + [jetoane_pe_s(n / c[v].mediana_s) for v in nume])
    print(_tabel(["jetoane generate"] + nume, randuri))
    figura, ax = plt.subplots(figsize=(7, 3.8))
    for v in nume:
        ax.plot([n for n, _ in rezultate], [n / c[v].mediana_s for n, c in rezultate], marker="o", label=v)
    ax.set_xlabel("jetoane generate")
    ax.set_ylabel("jetoane/s (mai mult e mai bine)")
    ax.set_title("generarea eager, modelul antrenat")
    ax.set_ylim(bottom=0)
    ax.legend()
    figura.tight_layout()
    arata(figura)
    n, c = rezultate[-1]
    raport = c.accelerare(nume[0], nume[1])
    print(f"La {cu_substantiv(n, 'jeton generat', 'jetoane generate')}: "
          + concluzie_accelerare(raport, "bucla cu cache", "bucla naivă", ce_se_compara="variante"))
    if len(rezultate) >= 2:
        primul, ultimul = rezultate[0], rezultate[-1]
        viteza = lambda r, v: r[0] / r[1][v].mediana_s  # noqa: E731
        scadere = viteza(primul, nume[0]) / viteza(ultimul, nume[0])
        print(f"De la {format_numar(primul[0])} la {cu_substantiv(ultimul[0], 'jeton', 'jetoane')}, bucla naivă a trecut de la "
              f"{jetoane_pe_s(viteza(primul, nume[0]))} la {jetoane_pe_s(viteza(ultimul, nume[0]))} "
              + (f"(de {_ori(scadere)} mai puține): fiecare jeton nou o face să recalculeze un prefix mai lung."
                 if scadere > 1.1 else
                 "(aproape la fel): la modelul ăsta mic și la lungimile astea, costul fix al operațiilor eager ascunde "
                 "lucrul în plus al prefixului; pe un model mare și pe secvențe lungi, bucla naivă încetinește cu lungimea."))
    cifre.inregistreaza(f"11.eager_cache_fata_de_naiv_n{n}", raport, "×", f"bucla cu cache care crește față de bucla naivă, eager, {n} jetoane")


# ---------------------------------------------------------------------------------------------
# 2. De ce cache-ul care crește se ceartă cu compilatorul
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recompilari:
    """Ce a făcut Dynamo cu pasul de decodare al cache-ului care crește, compilat cu `dynamic`:
    câte grafuri a compilat, câți pași au rulat prin ele (restul, eager), gărzile căzute (textul lui
    Dynamo) și dacă jetoanele au ieșit ca la bucla naivă."""

    dynamic: bool | None
    pasi: int
    grafuri: int
    rulari_prin_grafuri: int
    garzi: tuple[str, ...]
    jetoane_corecte: bool

    @property
    def eticheta(self) -> str:
        return {False: "dynamic=False", True: "dynamic=True", None: "implicit (dynamic=None)"}[self.dynamic]


def recompilari_cache_crescut(antrenat: ModelAntrenat, prompt: torch.Tensor, jetoane_noi: int,
                              variante: Sequence[bool | None] = (False, None)) -> list[Recompilari]:
    """Compilează pasul de decodare al cache-ului care crește, o dată pentru fiecare valoare a lui
    `dynamic` din `variante`, cu `backend="eager"` (gărzile și recompilările le decide Dynamo, oricare
    ar fi backend-ul; așa nu plătești Inductor pentru fiecare formă) și un numărător de compilări și
    rulări (`inspectie.NumaratorCompilari`, capitolul 02). Fiecare variantă e o funcție nouă, cu
    cache-ul ei Dynamo gol; gărzile căzute vin din `torch._dynamo.utils.guard_failures`, ca la
    `inspectie.motive_recompilare`, doar pentru codul ei. Limita de recompilări e cea implicită."""
    import re
    import warnings

    from ..inspectie import NumaratorCompilari, jurnal_torch, limita_recompilari

    decodor = DecodorCrescator(antrenat.model)
    asteptat = genereaza_crescator(decodor, prompt, jetoane_noi)
    rezultate = []
    for dinamic in variante:
        numarator = NumaratorCompilari("eager")
        invelis = invelis_nou(decodor, f"pas_cache_crescut_{dinamic}")
        pas = torch.compile(invelis, backend=numarator, dynamic=dinamic)
        esecuri = getattr(torch._dynamo.utils, "guard_failures", {})
        # avertismentul lui Dynamo despre limita de recompilări ajunge în jurnalul prins (tabelul îl spune)
        with warnings.catch_warnings(), limita_recompilari(8), jurnal_torch():
            warnings.simplefilter("ignore")
            obtinut = genereaza_crescator(decodor, prompt, jetoane_noi, pas=pas)
        garzi = tuple(re.sub(r"^\d+/\d+: ", "", str(m)) for m in esecuri.get(invelis.__code__, ()))
        rezultate.append(Recompilari(dinamic, jetoane_noi - 1, numarator.compilari, numarator.rulari, garzi,
                                     torch.equal(obtinut, asteptat)))
    return rezultate


def _garda_explicata(garda: str) -> str:
    """Garda căzută a unui cache care crește, spusă în română, lângă textul lui Dynamo."""
    import re

    potrivire = re.search(r"tensor '([^']+)' size mismatch at index (\d+)\. expected (\d+), actual (\d+)", garda)
    if potrivire:
        tensor, dimensiune_, asteptat, actual = potrivire.groups()
        indici = re.search(r"\[2\]\[(\d+)\]\[([01])\]$", tensor)
        care = (f" (al treilea argument al pasului, cache-ul: stratul {indici.group(1)}, "
                f"{'cheile' if indici.group(2) == '0' else 'valorile'})" if indici else " (un cache)")
        return (f"garda pe forma tensorului `{tensor}`{care}: dimensiunea {dimensiune_}, a pozițiilor, era "
                f"{asteptat} la compilare și acum e {actual}")
    return "o gardă pe forma intrărilor"


def arata_recompilarile(rezultate: Sequence[Recompilari]) -> None:
    """Tabelul recompilărilor cache-ului care crește și ce spune fiecare rând."""
    randuri = []
    for r in rezultate:
        randuri.append([r.eticheta, format_numar(r.pasi), format_numar(r.grafuri), format_numar(r.rulari_prin_grafuri),
                        format_numar(r.pasi - r.rulari_prin_grafuri), cifre.da_nu(r.jetoane_corecte)])
    print(_tabel(["compilarea pasului", "pași", "grafuri compilate", "pași prin grafuri", "pași eager",
                  "aceleași jetoane"], randuri))
    for r in rezultate:
        print()
        if r.garzi:
            print(f"{r.eticheta}: prima gardă căzută, în cuvintele lui Dynamo: „{r.garzi[0]}”")
            print(f"  adică {_garda_explicata(r.garzi[0])}.")
        if r.dynamic is False:
            if r.rulari_prin_grafuri < r.pasi:
                print(f"  Fiecare lungime nouă a cache-ului a cerut un graf nou, până la limita de recompilări "
                      f"({cu_substantiv(r.grafuri, 'graf', 'grafuri')}); de acolo, Dynamo a renunțat, iar ceilalți "
                      f"{cu_substantiv(r.pasi - r.rulari_prin_grafuri, 'pas', 'pași')} au rulat eager, fără compilare. Cu "
                      "`fullgraph=True`, limita ar fi fost o eroare.")
            else:
                print(f"  Fiecare lungime nouă a cache-ului a cerut un graf nou: {cu_substantiv(r.grafuri, 'graf', 'grafuri')} "
                      f"pentru {cu_substantiv(r.pasi, 'pas', 'pași')}.")
        elif r.grafuri > 1:
            print(f"  După prima recompilare, Dynamo a făcut lungimea simbolică (formele dinamice din capitolul 02): "
                  f"{cu_substantiv(r.grafuri, 'graf', 'grafuri')} pentru toți cei {cu_substantiv(r.pasi, 'pas', 'pași')}. "
                  "Prețul: kernel-uri generate pentru orice lungime, gărzi pe o formă simbolică și, la fiecare pas, "
                  "`torch.cat` care copiază tot cache-ul vechi într-unul nou.")
    cifre.inregistreaza("11.cache_crescut_grafuri_static", next((r.grafuri for r in rezultate if r.dynamic is False), 0), "",
                        "grafuri compilate pentru pasul cu cache care crește, dynamic=False")


# ---------------------------------------------------------------------------------------------
# 3. Decodarea compilată o dată: grafuri, reluări, jetoane
# ---------------------------------------------------------------------------------------------


def numara_reluari_cuda(functie: Callable, *argumente) -> int | None:
    """De câte ori au fost reluate grafuri CUDA cât a rulat `functie(*argumente)`: evenimentele
    `cudaGraphLaunch` (apelul CUDA care reia un graf capturat) din urma lui `torch.profiler`. Aceeași
    numărătoare pe torch 2.11 și 2.14: profilerul vede apelurile driverului CUDA, nu structurile interne
    ale lui Inductor. Pe o mașină fără GPU, None."""
    if not torch.cuda.is_available():
        return None
    from torch.profiler import ProfilerActivity, profile

    sincronizeaza()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as profil:
        functie(*argumente)
        sincronizeaza()
    return sum(1 for e in profil.events() if "GraphLaunch" in e.name)


@dataclass
class CompilareDecodare:
    """Decodarea cu cache-ul static, compilată: timpii primelor apeluri (compilările), grafurile noi
    la o generare întreagă după ele, jetoanele față de eager și de bucla naivă, reluările grafurilor
    CUDA (pe GPU) și starea arborelui lor (capitolul 04)."""

    jetoane_noi: int
    compilare_umplere_s: float
    compilare_decodare_s: float
    grafuri_la_compilare: int
    grafuri_prima_generare: int
    grafuri_a_doua_generare: int
    identice_eager: int
    identice_naiv: int
    mod: str | None
    reluari: int | None = None
    grafuri_cuda: int | None = None
    ramuri_sarite: int = 0
    cache_rece: bool = True


def compileaza_decodarea(decodor: DecodorStatic, umplere: Callable, decodare: Callable, prompt: torch.Tensor,
                         jetoane_noi: int, genereaza_naiv: Callable, mod: str | None) -> CompilareDecodare:
    """Rulează o generare cu `umplere` și `decodare` (compilate separat, încă neapelate), cronometrând
    primul apel al fiecăreia (compilarea) cu compilatorul deja încălzit în proces și cu un cache gol
    (`masurare_compilare.timp_compilare`); numără grafurile noi la prima generare și la a doua (zero,
    dacă decodarea s-a compilat o dată pentru toate pozițiile) și compară jetoanele cu decodorul eager și
    cu bucla naivă (`genereaza_naiv`, din notebook). Pe GPU, numără reluările grafurilor CUDA la a treia
    generare."""
    from torch._dynamo.utils import counters

    from ..masurare_compilare import incalzeste_compilatorul, timp_compilare

    lungime = prompt.shape[1]
    pozitii = torch.arange(lungime + jetoane_noi, device=prompt.device)
    sarite_inainte = counters["inductor"]["cudagraph_skips"]
    # În profilul rapid (testele), compilarea nu se cronometrează cinstit (fără încălzirea compilatorului, cu
    # cache-ul lui Inductor cum e): acolo contează doar că rulează.
    rece = profil_curent() != "rapid"
    if rece:
        incalzeste_compilatorul(prompt.device)  # graful ei de încălzire nu intră în numărătoarea de mai jos
    prima = (lambda f, *a: timp_compilare(f, *a)) if rece else (lambda f, *a: timp_prima_apelare(f, *a))
    with torch.no_grad():
        inainte = counters["stats"]["unique_graphs"]
        t_umplere = prima(umplere, prompt, pozitii[:lungime])
        # intrarea decodării, ca în `genereaza`: un jeton ieșit din argmax (un tensor contiguu, 1 × 1)
        jeton = umplere(prompt, pozitii[:lungime])[:, -1:].argmax(dim=-1)
        t_decodare = prima(decodare, jeton, pozitii[lungime:lungime + 1])
        la_compilare = counters["stats"]["unique_graphs"] - inainte
        inainte = counters["stats"]["unique_graphs"]
        compilata = genereaza(umplere, decodare, prompt, jetoane_noi)
        prima = counters["stats"]["unique_graphs"] - inainte
        inainte = counters["stats"]["unique_graphs"]
        compilata = genereaza(umplere, decodare, prompt, jetoane_noi)
        a_doua = counters["stats"]["unique_graphs"] - inainte
        eager = genereaza(decodor, decodor, prompt, jetoane_noi)
        naiv = genereaza_naiv(decodor.model, prompt, jetoane_noi)
    noi = slice(lungime, None)
    rezultat = CompilareDecodare(
        jetoane_noi, t_umplere, t_decodare, la_compilare, prima, a_doua,
        int((compilata[:, noi] == eager[:, noi]).sum()), int((compilata[:, noi] == naiv[:, noi]).sum()), mod,
        ramuri_sarite=int(counters["inductor"]["cudagraph_skips"] - sarite_inainte), cache_rece=rece,
    )
    if torch.cuda.is_available() and mod == "reduce-overhead":
        from .cap04_grafuri_cuda import stare_grafuri

        rezultat.reluari = numara_reluari_cuda(lambda: genereaza(umplere, decodare, prompt, jetoane_noi))
        rezultat.grafuri_cuda = stare_grafuri().numar_grafuri
    return rezultat


def arata_compilarea(r: CompilareDecodare) -> None:
    """Ce s-a compilat și de câte ori, reluările grafurilor CUDA (sau ce face `reduce-overhead` pe
    procesor) și jetoanele față de eager și de bucla naivă."""
    pasi = r.jetoane_noi - 1
    cum = ("compilatorul încălzit, cache gol" if r.cache_rece else
           "în profilul rapid, fără încălzirea compilatorului și cu cache-ul lui Inductor cum e: timpii nu se compară")
    print(f"Primul apel al umplerii (compilarea ei): {format_timp(r.compilare_umplere_s)}; al decodării: "
          f"{format_timp(r.compilare_decodare_s)} ({cum}).")
    print(f"Grafuri compilate de cele două prime apeluri: {format_numar(r.grafuri_la_compilare)} (umplerea și decodarea, câte "
          f"unul). Apoi, la prima generare ({cu_substantiv(pasi, 'pas', 'pași')} de decodare, la alte poziții): "
          f"{cu_substantiv(r.grafuri_prima_generare, 'graf nou', 'grafuri noi')}; la a doua: "
          f"{cu_substantiv(r.grafuri_a_doua_generare, 'graf nou', 'grafuri noi')}.")
    if r.grafuri_prima_generare == 0 and r.grafuri_a_doua_generare == 0:
        print("  Decodarea s-a compilat o singură dată pentru toate pozițiile: poziția e un tensor (o valoare), nu o formă "
              "sau un număr Python; umplerea are graful ei, compilat separat.")
    else:
        print("  Au apărut grafuri noi după primele apeluri: ceva din pas depinde de poziție ca formă sau ca număr Python "
              "(caută cu `TORCH_LOGS=recompiles`).")
    total = r.jetoane_noi
    print(f"Jetoanele compilate față de decodorul eager: {format_numar(r.identice_eager)} din {format_numar(total)} identice; "
          f"față de bucla naivă: {format_numar(r.identice_naiv)} din {format_numar(total)}.")
    if r.identice_eager < total or r.identice_naiv < total:
        print("  Unde diferă, două logit-uri erau aproape egale, iar rotunjirile altei ordini a operațiilor (alt kernel) "
              "au ales celălalt jeton: ieșirile sunt egale doar până la rotunjiri.")
    if r.reluari is not None:
        print(f"Grafuri CUDA: {cu_substantiv(r.reluari, 'reluare', 'reluări')} (`cudaGraphLaunch` în urma profilerului) la o "
              f"generare cu {cu_substantiv(pasi, 'pas', 'pași')} de decodare (umplerea e compilată fără grafuri CUDA); "
              f"arborele grafurilor CUDA al procesului are {cu_substantiv(r.grafuri_cuda or 0, 'graf capturat', 'grafuri capturate')}.")
        if r.reluari == pasi:
            print("  Câte o reluare pe pas: același graf, capturat o dată, reluat la fiecare poziție.")
        if r.ramuri_sarite:
            print(f"  Inductor a sărit grafurile CUDA de {cu_substantiv(r.ramuri_sarite, 'dată', 'ori')} („skipping cudagraphs”): "
                  "motivul îl scrie `TORCH_LOGS=cudagraphs`.")
        cifre.inregistreaza("11.reluari_cuda_pe_generare", r.reluari, "", f"reluări de grafuri CUDA la o generare de {total} jetoane")
    elif r.mod is None:
        print('Pe procesor, decodarea e compilată în modul implicit: cu mode="reduce-overhead", Inductor ar genera același '
              "cod C++, fără grafuri CUDA (capitolul 04). Reluările grafurilor CUDA le vezi doar pe un GPU. "
              + cifre.despre_referinta("reluările grafurilor CUDA la decodare", "11.reluari_cuda"))
    cifre.inregistreaza("11.compilare_decodare_s", r.compilare_decodare_s, "s", "primul apel al decodării (compilarea), cache gol",
                        depinde_de_procesor=True)
    cifre.inregistreaza("11.compilare_umplere_s", r.compilare_umplere_s, "s", "primul apel al umplerii (compilarea), cache gol",
                        depinde_de_procesor=True)
    cifre.inregistreaza("11.grafuri_noi_a_doua_generare", r.grafuri_a_doua_generare, "", "grafuri noi la a doua generare")


# ---------------------------------------------------------------------------------------------
# 4. Plafonul: octeții pe jeton și lățimea de bandă
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Octeti:
    """Octeții pe care îi citește un pas de decodare:

    - `greutati`: toate greutățile care se citesc întregi la fiecare pas (straturile liniare, cu
      scalele lor la int8, normalizările, capul de ieșire), fără tabelele de înglobare;
    - `randuri_inglobare`: din tabelele de înglobare (jetoane și poziții) se citește doar câte un
      rând pe secvență;
    - `kv_pe_pozitie`: cheile și valorile unei poziții, în toate straturile, pentru o secvență.

    La poziția p (numărată de la 0), atenția citește pozițiile 0…p, adică p + 1 poziții."""

    greutati: int
    randuri_inglobare: int
    kv_pe_pozitie: int

    def pe_pas(self, pozitie: int, lot: int = 1) -> float:
        """Octeții citiți la pasul care scrie poziția `pozitie`, pentru `lot` secvențe."""
        return self.greutati + lot * (self.randuri_inglobare + self.kv_pe_pozitie * (pozitie + 1))

    def mediu_pe_pas(self, start: int, pasi: int, lot: int = 1) -> float:
        """Media octeților pe pas, la pașii care scriu pozițiile `start` … `start + pasi − 1`."""
        return sum(self.pe_pas(p, lot) for p in range(start, start + pasi)) / pasi

    def cu_tot_cache_ul(self, lungime_maxima: int, lot: int = 1) -> float:
        """Octeții pe pas când atenția citește tot cache-ul static (toate cele `lungime_maxima` poziții,
        cele mascate incluse), cum face un kernel de atenție cu o mască densă."""
        return self.greutati + lot * (self.randuri_inglobare + self.kv_pe_pozitie * lungime_maxima)


def octeti_modelului(model: ReteaTransformer, tip_cache: torch.dtype | None = None) -> Octeti:
    """Octeții unui pas de decodare al lui `model` (`Octeti`), socotiți din tensorii lui: toți
    parametrii și tampoanele, mai puțin tabelele de înglobare (din care se citește câte un rând). Cache-ul
    KV are tipul `tip_cache` (implicit, al activărilor modelului)."""
    greutati, randuri = 0, 0
    for modul in model.modules():
        proprii = [*modul.parameters(recurse=False), *modul.buffers(recurse=False)]
        if isinstance(modul, nn.Embedding):
            randuri += modul.weight.shape[1] * modul.weight.element_size()
        else:
            greutati += sum(t.numel() * t.element_size() for t in proprii)
    c = model.configuratie
    if tip_cache is None:
        tip_cache = getattr(model, "tip_activari", next(model.parameters()).dtype)
    element = torch.empty((), dtype=tip_cache).element_size()
    return Octeti(greutati, randuri, 2 * c.nr_straturi * c.dim_model * element)


def plafon_jetoane(octeti_pe_pas: float, gbps: float, lot: int = 1) -> float:
    """Plafonul în jetoane pe secundă: un pas citește `octeti_pe_pas` octeți cu cel mult `gbps` GB/s
    (10⁹ octeți pe secundă) și produce `lot` jetoane."""
    return lot * gbps * 1e9 / octeti_pe_pas


def varf_calcul(dispozitiv, tip: torch.dtype) -> float:
    """Debitul de calcul măsurat al mașinii tale, în FLOP/s: un produs de matrice pătrat, n × n
    (8 192 pe GPU, 1 024 pe procesor, 256 în profilul rapid), în `tip`, cu `masurare.masoara`. E
    „acoperișul de calcul” al decodării: un lot mare face decodarea limitată de calcul."""
    n = dimensiune(gpu=8192, cpu=1024, rapid=256)
    a = torch.randn(n, n, device=dispozitiv).to(tip)
    b = torch.randn(n, n, device=dispozitiv).to(tip)
    masuratoare = masoara(torch.mm, a, b, eticheta=f"torch.mm {n}³")
    return 2 * n ** 3 / masuratoare.mediana_s


def _flops_pe_jeton(model: ReteaTransformer, pozitie_medie: float) -> float:
    """Operațiile unui jeton: 2 pe fiecare pondere a straturilor liniare (înmulțire și adunare), plus
    atenția (4 × lățime pe fiecare poziție citită, în fiecare strat)."""
    c = model.configuratie
    liniare = sum(m.in_features * m.out_features for m in model.modules() if isinstance(m, (nn.Linear, LiniarInt8)))
    return 2 * liniare + 4 * c.nr_straturi * c.dim_model * (pozitie_medie + 1)


def bucla_naiva(model: ReteaTransformer, lot: int, start: int, pasi: int) -> Callable[[], torch.Tensor]:
    """O generare naivă de `pasi` jetoane, de la o secvență de `start` jetoane (fixe): la fiecare jeton,
    tot prefixul, de la capăt (`genereaza` din capitolul 06, fără găleți)."""
    from .cap06_modelul_intreg import genereaza as genereaza_fara_cache

    dispozitiv = next(model.parameters()).device
    prompt = torch.zeros(lot, start, dtype=torch.long, device=dispozitiv)
    return lambda: genereaza_fara_cache(model, prompt, pasi)


def bucla_crescatoare(model: ReteaTransformer, lot: int, start: int, pasi: int) -> Callable[[], torch.Tensor]:
    """`pasi` pași de decodare cu cache-ul care crește, pornind de la un cache de `start` poziții (valorile
    lui nu schimbă timpul)."""
    decodor = DecodorCrescator(model)
    dispozitiv = next(model.parameters()).device
    cache_initial = decodor.cache_gol(lot, start)
    pozitii = torch.arange(start + pasi, device=dispozitiv)
    jeton_initial = torch.zeros(lot, 1, dtype=torch.long, device=dispozitiv)

    @torch.no_grad()
    def ruleaza():
        jeton, cache = jeton_initial, cache_initial
        for i in range(start, start + pasi):
            logituri, cache = decodor(jeton, pozitii[i:i + 1], cache)
            jeton = logituri[:, -1:].argmax(dim=-1)
        return jeton

    return ruleaza


def bucla_statica(decodare: Callable, lot: int, start: int, pasi: int, dispozitiv, lungime_maxima: int) -> Callable[[], torch.Tensor]:
    """`pasi` pași de decodare cu `decodare` (un `DecodorStatic`, eager sau compilat), de la poziția
    `start`. Pozițiile de dinainte nu se umplu cu un prompt: valorile din cache nu schimbă timpul."""
    pozitii = torch.arange(lungime_maxima, device=dispozitiv)
    jeton_initial = torch.zeros(lot, 1, dtype=torch.long, device=dispozitiv)

    @torch.no_grad()
    def ruleaza():
        jeton = jeton_initial
        for i in range(start, start + pasi):
            jeton = decodare(jeton, pozitii[i:i + 1])[:, -1:].argmax(dim=-1)
        return jeton

    return ruleaza


@dataclass
class Viteza:
    """Variantele decodării măsurate împreună (`compara`): jetoanele pe secundă ale fiecăreia,
    octeții medii pe pas (cei ceruți de calcul), plafonul și partea din el atinsă, plus octeții pe
    care îi citește cache-ul static întreg, primul apel al decodării compilate (compilarea) și bucla
    compilată (pentru a vedea, pe GPU, unde se duce timpul)."""

    comparatie: Comparatie
    lot: int
    pasi: int
    octeti: dict
    gbps: float
    parametri: int
    octeti_cu_tot_cache_ul: float | None = None
    compilare_s: float | None = None
    bucla_compilata: Callable | None = field(default=None, repr=False)

    def jetoane_pe_s(self, nume: str) -> float:
        return self.lot * self.pasi / self.comparatie[nume].mediana_s

    def interval(self, nume: str) -> tuple[float, float]:
        m = self.comparatie[nume]
        return self.lot * self.pasi / m.cuantila80_s, self.lot * self.pasi / m.cuantila20_s

    def plafon(self, nume: str) -> float:
        return plafon_jetoane(self.octeti[nume], self.gbps, self.lot)

    def parte(self, nume: str) -> float:
        return self.jetoane_pe_s(nume) / self.plafon(nume)


def masoara_viteza(variante: Mapping[str, Callable[[], object]], octeti: Mapping[str, float], pasi: int, gbps: float,
                   parametri: int, lot: int = 1, octeti_cu_tot_cache_ul: float | None = None,
                   timp_minim_s: float | None = None) -> Viteza:
    """Măsoară intercalat (`masurare.compara`, 5 runde) variantele: fiecare e o generare de `pasi`
    jetoane pe secvență, `lot` secvențe. `octeti[nume]` e media octeților citiți pe pas de varianta
    aceea (greutățile ei și cache-ul până la poziție): din ei și `gbps` vine plafonul ei. Ceasul e cel de
    perete, și pe GPU: jetoanele pe secundă ale unei generări sunt cele pe care le simte programul, cu tot
    cu Python-ul buclei (pe GPU, `unde_se_duce_timpul` arată apoi cât a lucrat GPU-ul)."""
    with torch.no_grad():
        comparatie = compara(dict(variante), runde=5, timp_minim_s=timp_minim_s or _timp_minim(), ceas="perete")
    return Viteza(comparatie, lot, pasi, dict(octeti), gbps, parametri, octeti_cu_tot_cache_ul)


#: Numele variantelor compilate ale secțiunii 4: decodarea compilată (pe GPU, cu grafuri CUDA) și, doar pe GPU,
#: aceeași decodare compilată fără grafuri CUDA.
VARIANTA_COMPILATA = "cache static, compilat"
VARIANTA_FARA_GRAFURI = "cache static, compilat, fără grafuri CUDA"


def masoara_variantele(marimi: Marimi, model: ReteaTransformer, static: DecodorStatic, decodare_compilata: Callable,
                       gbps: float) -> Viteza:
    """Secțiunea 4: decodarea modelului de viteză, lotul 1, de la poziția `marimi.prompt`, câte
    `marimi.jetoane_noi` jetoane, în patru feluri măsurate împreună: bucla naivă (tot prefixul, eager),
    cache-ul care crește (eager), cache-ul static `static` (eager) și același cache static compilat
    (`decodare_compilata`, încă neapelată: primul ei apel, compilarea, e cronometrat separat); pe GPU,
    și aceeași decodare compilată fără grafuri CUDA (modul implicit), ca să se vadă ce aduc ele. Octeții
    pe pas sunt cei ceruți de calcul (greutățile, cache-ul până la poziție); bucla naivă recitește și
    tot prefixul, dar greutățile tot o dată pe pas."""
    dispozitiv = next(model.parameters()).device
    start, pasi, lungime = marimi.prompt, marimi.jetoane_noi, static.lungime_maxima
    pozitii = torch.arange(lungime, device=dispozitiv)
    from ..masurare_compilare import timp_compilare

    exemplu = (torch.zeros(1, 1, dtype=torch.long, device=dispozitiv), pozitii[start:start + 1])
    with torch.no_grad():
        # compilatorul încălzit și cache gol; în profilul rapid (testele), primul apel așa cum vine
        compilare_s = (timp_compilare(decodare_compilata, *exemplu) if profil_curent() != "rapid"
                       else timp_prima_apelare(decodare_compilata, *exemplu))
    compilata = bucla_statica(decodare_compilata, 1, start, pasi, dispozitiv, lungime)
    variante = {
        "naivă, eager": bucla_naiva(model, 1, start, pasi),
        "cache care crește, eager": bucla_crescatoare(model, 1, start, pasi),
        "cache static, eager": bucla_statica(static, 1, start, pasi, dispozitiv, lungime),
    }
    if dispozitiv.type == "cuda":
        # același pas, compilat fără grafuri CUDA: cât aduc ele, separat de fuziune
        fara_grafuri = _compileaza_pasul(static, "decodare_fara_grafuri_cuda", None,
                                         (torch.zeros(1, 1, dtype=torch.long, device=dispozitiv), pozitii[start:start + 1]))
        variante[VARIANTA_FARA_GRAFURI] = bucla_statica(fara_grafuri, 1, start, pasi, dispozitiv, lungime)
    variante[VARIANTA_COMPILATA] = compilata
    octeti = octeti_modelului(model)
    pe_pas = octeti.mediu_pe_pas(start, pasi)
    viteza = masoara_viteza(variante, {n: pe_pas for n in variante}, pasi, gbps, model.numar_parametri(),
                            octeti_cu_tot_cache_ul=octeti.cu_tot_cache_ul(lungime))
    viteza.compilare_s = compilare_s
    viteza.bucla_compilata = compilata
    return viteza


#: De ce poate ieși decodarea compilată mai lentă decât cea eager pe procesor (propoziția din verdict, doar atunci).
CAUZA_PE_PROCESOR = (
    "pe procesor, produsele de matrice rămân apeluri de bibliotecă, ca la eager, deci compilarea câștigă doar pe operațiile "
    "mici dintre ele; în schimb, codul C++ generat își împarte fiecare kernel pe toate nucleele (OpenMP), iar când nucleele "
    "sunt ocupate și de alte programe, sincronizarea firelor la fiecare kernel costă mai mult decât câștigă fuziunea. "
    "Măsoară din nou cu mașina liniștită"
)


def _judeca_tinta(raport, tinta: float) -> str:
    """„atinsă…”, „nu e atinsă: lipsesc …” sau „atinsă doar în unele runde…”, după rundele din mijloc."""
    jos, sus = raport.capete_verdict
    if jos >= tinta:
        return "atinsă în toate rundele din mijloc."
    if sus < tinta:
        return f"nu e atinsă: îi lipsește un factor de {cu_unitate(tinta / raport.mediana, '×')}."
    return "atinsă doar în unele runde: aici decide zgomotul."


def _tinte_se_judeca(pe_gpu: bool, parametri: int) -> bool:
    """Țintele capitolului se judecă doar pe un GPU mare, cu un model de cel puțin un miliard de parametri."""
    return pe_gpu and gpu_mare() and parametri >= PARAMETRI_MINIM_TINTA


def _grafic_jetoane(viteza: Viteza, titlu: str, ax=None):
    """Bare: jetoanele pe secundă ale fiecărei variante, cu împrăștierea, și plafonul fiecăreia (o linie
    neagră pe bara ei), cu partea atinsă scrisă lângă."""
    import matplotlib.pyplot as plt

    nume = list(viteza.comparatie.masuratori)
    if ax is None:
        _, ax = plt.subplots(figsize=(8.5, 0.6 * len(nume) + 1.4))
    culori = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    valori = [viteza.jetoane_pe_s(n) for n in nume]
    erori = [[v - viteza.interval(n)[0] for v, n in zip(valori, nume)], [viteza.interval(n)[1] - v for v, n in zip(valori, nume)]]
    ax.barh(range(len(nume)), valori, xerr=erori, capsize=3, color=[culori[i % len(culori)] for i in range(len(nume))])
    for i, n in enumerate(nume):
        plafon = viteza.plafon(n)
        ax.plot([plafon, plafon], [i - 0.4, i + 0.4], color="black", linewidth=2, label="plafonul variantei" if i == 0 else None)
        ax.text(max(valori[i], plafon), i, f"  {jetoane_pe_s(valori[i])} ({format_procent(viteza.parte(n))} din plafon)",
                va="center", fontsize=9)
    ax.set_yticks(list(range(len(nume))), nume)
    ax.invert_yaxis()
    ax.set_xlim(0, max(max(valori), max(viteza.plafon(n) for n in nume)) * 1.9)
    ax.set_xlabel("jetoane/s (mai mult e mai bine)")
    ax.set_title(titlu)
    ax.legend(loc="lower right", fontsize=8)
    return ax


def _nota_peste_plafon(viteza: Viteza, nume: Sequence[str], pe_gpu: bool) -> str | None:
    """Propoziția pentru variantele care trec de plafon cu peste 5%: greutățile încap într-un cache."""
    peste = [n for n in nume if viteza.parte(n) > 1.05]
    if not peste:
        return None
    unde = "în cache-ul L2 al GPU-ului" if pe_gpu else "în cache-urile procesorului"
    return (f"Peste plafon ({', '.join(f'„{n}”' for n in peste)}): octeții unui pas "
            f"({format_octeti(viteza.octeti[peste[0]])}) încap {unde}, mai rapide decât memoria; plafonul e lățimea de bandă "
            "a memoriei, măsurată pe un tensor mult mai mare. La un model care nu încape, plafonul redevine acoperiș.")


def arata_viteza(viteza: Viteza, pe_gpu: bool) -> None:
    """Tabelul (jetoane/s, octeți pe pas, plafon, partea din plafon), graficul și verdictele:
    decodarea compilată față de eager, cu cache static și cu cache care crește. Pe un GPU mare, cu un
    model de cel puțin un miliard de parametri, judecă și țintele capitolului; pe GPU, spune unde se
    duce timpul unui pas."""
    from ..grafice import arata

    tinte = _tinte_se_judeca(pe_gpu, viteza.parametri)
    nume = list(viteza.comparatie.masuratori)
    randuri = [[n, jetoane_pe_s(viteza.jetoane_pe_s(n)), format_timp(viteza.comparatie[n].mediana_s / viteza.pasi),
                format_octeti(viteza.octeti[n]), jetoane_pe_s(viteza.plafon(n)), format_procent(viteza.parte(n))] for n in nume]
    print(_tabel(["varianta", "jetoane/s", "pe pas", "octeți pe pas", "plafonul", "din plafon"], randuri))
    print(f"Plafonul: lățimea de bandă a copierii măsurată pe mașina ta, {cu_unitate(viteza.gbps, 'GB/s')}, împărțită la "
          "octeții pe care îi citește un pas (greutățile și cache-ul KV până la poziția lui).")
    if viteza.compilare_s is not None:
        cum = ("compilatorul încălzit, cache gol" if profil_curent() != "rapid" else
               "în profilul rapid, cu cache-ul lui Inductor cum e: poate fi doar încărcarea din cache")
        print(f"Primul apel al decodării compilate (compilarea): {format_timp(viteza.compilare_s)} ({cum}).")
        cifre.inregistreaza("11.viteza_compilare_s", viteza.compilare_s, "s", "modelul de viteză: primul apel al decodării compilate",
                            depinde_de_procesor=True)
    _grafic_jetoane(viteza, f"decodarea, lotul {viteza.lot}")
    arata()
    nota = _nota_peste_plafon(viteza, nume, pe_gpu)
    if nota:
        print(nota)
    compilat = VARIANTA_COMPILATA if VARIANTA_COMPILATA in nume else next((n for n in nume if "compilat" in n), None)
    if compilat is None:
        return
    if VARIANTA_FARA_GRAFURI in nume:
        raport = viteza.comparatie.accelerare(VARIANTA_FARA_GRAFURI, compilat)
        print(concluzie_accelerare(raport, "Decodarea cu grafuri CUDA (reduce-overhead)", "aceeași decodare compilată fără ele",
                                   ce_se_compara="variante"))
        cifre.inregistreaza("11.grafuri_cuda_fata_de_implicit", raport, "×", "decodarea cu reduce-overhead față de modul implicit")
    static_eager = next((n for n in nume if "static" in n and "eager" in n), None)
    crescut = next((n for n in nume if "crește" in n), None)
    if static_eager:
        raport = viteza.comparatie.accelerare(static_eager, compilat)
        print(concluzie_accelerare(raport, "Decodarea compilată", "cea eager, cu același cache static",
                                   cauza=None if pe_gpu else CAUZA_PE_PROCESOR))
        cifre.inregistreaza("11.compilat_fata_de_eager_static", raport, "×", "decodarea compilată față de eager, cache static")
    if crescut:
        raport = viteza.comparatie.accelerare(crescut, compilat)
        print(concluzie_accelerare(raport, "Decodarea compilată cu cache static", "bucla eager cu cache care crește",
                                   ce_se_compara="variante"))
        cifre.inregistreaza("11.compilat_fata_de_crescut", raport, "×", "decodarea compilată (cache static) față de eager (cache care crește)")
        if tinte:
            print(f"  ținta (cel puțin {cu_unitate(TINTA_FATA_DE_CRESCUT, '×')}): {_judeca_tinta(raport, TINTA_FATA_DE_CRESCUT)}")
    parte = viteza.parte(compilat)
    print(f"Decodarea compilată citește octeții unui pas cu {cu_unitate(parte * viteza.gbps, 'GB/s')}: "
          f"{format_procent(parte)} din lățimea de bandă a copierii.")
    if viteza.octeti_cu_tot_cache_ul is not None:
        cu_tot = viteza.octeti_cu_tot_cache_ul
        print(f"  Socotit cu tot cache-ul static (atenția cu mască citește și pozițiile mascate: {format_octeti(cu_tot)} pe pas), "
              f"{format_procent(viteza.jetoane_pe_s(compilat) * cu_tot / viteza.lot / (viteza.gbps * 1e9))}.")
    cifre.inregistreaza("11.compilat_jetoane_pe_s", viteza.jetoane_pe_s(compilat), "jetoane/s", f"decodarea compilată, lotul {viteza.lot}",
                        depinde_de_procesor=True if not pe_gpu else None)
    cifre.inregistreaza("11.compilat_parte_din_plafon", parte, "", "decodarea compilată: partea din plafonul de copiere",
                        prag_absolut=0.05)
    for n in nume:
        cifre.inregistreaza(f"11.viteza_{_cheie(n)}_jetoane_pe_s", viteza.jetoane_pe_s(n), "jetoane/s", f"{n}, lotul {viteza.lot}",
                            depinde_de_procesor=True if not pe_gpu else None)
    if tinte:
        if parte >= TINTA_PLAFON:
            print(f"  ținta ({format_procent(TINTA_PLAFON)} din lățimea de bandă): atinsă.")
        else:
            print(f"  ținta ({format_procent(TINTA_PLAFON)} din lățimea de bandă): nu e atinsă, lipsesc "
                  f"{format_numar(100 * (TINTA_PLAFON - parte), 1)} puncte procentuale; mai jos, unde se duce timpul unui pas.")
    elif pe_gpu:
        print(f"Țintele capitolului ({format_procent(TINTA_PLAFON)} din lățimea de bandă, cel puțin "
              f"{cu_unitate(TINTA_FATA_DE_CRESCUT, '×')} față de cache-ul care crește) se judecă pe un GPU mare, cu un model de "
              "cel puțin un miliard de parametri; aici doar le măsori.")
    else:
        print("Pe procesor, capitolul nu judecă țintele: ele sunt ale unui GPU mare, cu un model de peste un miliard de "
              "parametri. " + cifre.despre_referinta("decodarea pe un GPU mare, față de plafon", "11.compilat_parte_din_plafon"))
    if pe_gpu and viteza.bucla_compilata is not None:
        unde_se_duce_timpul(viteza.bucla_compilata)


def unde_se_duce_timpul(bucla: Callable[[], object], cate: int = 6) -> None:
    """Pe GPU: cât lucrează GPU-ul cât rulează `bucla` (o generare de câțiva pași, chemată fără argumente;
    golurile dintre kernel-uri) și cele mai grele kernel-uri, pe apel (`masurare.ocupare_gpu`). Pe
    procesor nu tipărește nimic."""
    from ..masurare import ocupare_gpu

    if not torch.cuda.is_available():
        return
    with torch.no_grad():
        ocupare = ocupare_gpu(bucla)
    if ocupare is None:
        print("Profilerul n-a putut urmări GPU-ul: nu pot spune unde se duce timpul.")
        return
    print(f"Unde se duce timpul unei generări: {ocupare}")
    print("Cele mai grele kernel-uri (timpul lor pe GPU, la o generare):")
    for nume, ms in ocupare.timp_pe_nume(cate).items():
        print(f"  {format_timp(ms / 1e3):>10}  {nume}")


def _cheie(text: str) -> str:
    import re
    import unicodedata

    simplu = unicodedata.normalize("NFKD", text.lower()).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", simplu).strip("_")[:40]


@dataclass
class RandMarime:
    """Un model din baleiajul pe mărime: configurația, octeții pe pas, jetoanele pe secundă eager și
    compilat (măsurate împreună) și plafonul."""

    configuratie: ConfiguratieTransformer
    parametri: int
    octeti_pe_pas: float
    comparatie: Comparatie
    pasi: int
    gbps: float

    def jetoane_pe_s(self, nume: str) -> float:
        return self.pasi / self.comparatie[nume].mediana_s

    @property
    def plafon(self) -> float:
        return plafon_jetoane(self.octeti_pe_pas, self.gbps)


def _compileaza_pasul(decodor: DecodorStatic, nume: str, mod: str | None, exemplu: tuple, **optiuni) -> Callable:
    """`torch.compile(decodor)` într-un înveliș nou (cache Dynamo gol), cu `fullgraph=True`,
    `dynamic=False` și `mod`, apelat o dată pe `exemplu` (compilarea; pe GPU, cu reduce-overhead, încă
    două apeluri: încălzirea și capturarea grafului CUDA)."""
    compilat = torch.compile(invelis_nou(decodor, nume), fullgraph=True, dynamic=False, mode=mod, **optiuni)
    with torch.no_grad():
        for _ in range(3 if mod == "reduce-overhead" else 1):
            compilat(*exemplu)
    return compilat


def masoara_marimile(marimi: Marimi, gbps: float, mod: str | None, dispozitiv,
                     principal: tuple[ReteaTransformer, DecodorStatic, Callable] | None = None) -> list[RandMarime]:
    """Pentru fiecare (lățime, straturi) din `marimi.marimi_model`: un model de viteză (greutăți
    aleatoare) și decodarea lui cu cache static, eager și compilată, măsurate împreună, plus octeții
    pe pas și plafonul. `principal` = (model, decodor static, decodarea lui compilată) e modelul de viteză
    al secțiunii, deja compilat: mărimea lui nu se compilează a doua oară."""
    rezultate = []
    v = marimi.viteza
    for latime, straturi in marimi.marimi_model:
        pozitii = torch.arange(v.lungime, device=dispozitiv)
        if principal is not None and (latime, straturi) == (principal[0].configuratie.dim_model,
                                                            principal[0].configuratie.nr_straturi):
            model, decodor, compilat = principal
            configuratie = model.configuratie
        else:
            configuratie = ConfiguratieTransformer(vocabular=v.vocabular, dim_model=latime, nr_capete=max(2, latime // 64),
                                                   nr_straturi=straturi, lungime=v.lungime, marime_lot=1)
            model = model_de_viteza(configuratie, marimi.tip, dispozitiv)
            decodor = DecodorStatic(model)
            jeton = torch.zeros(1, 1, dtype=torch.long, device=dispozitiv)
            compilat = _compileaza_pasul(decodor, f"decodare_{latime}_{straturi}", mod, (jeton, pozitii[marimi.prompt:marimi.prompt + 1]))
        variante = {
            "eager": bucla_statica(decodor, 1, marimi.prompt, marimi.jetoane_noi, dispozitiv, v.lungime),
            "compilat": bucla_statica(compilat, 1, marimi.prompt, marimi.jetoane_noi, dispozitiv, v.lungime),
        }
        with torch.no_grad():
            comparatie = compara(variante, runde=5, timp_minim_s=_timp_minim(), ceas="perete")
        octeti = octeti_modelului(model).mediu_pe_pas(marimi.prompt, marimi.jetoane_noi)
        rezultate.append(RandMarime(configuratie, model.numar_parametri(), octeti, comparatie, marimi.jetoane_noi, gbps))
        del model, decodor, compilat
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    return rezultate


def arata_marimile(randuri: Sequence[RandMarime], pe_gpu: bool) -> None:
    """Tabelul și graficul baleiajului pe mărime: jetoanele pe secundă față de octeții pe pas, cu
    plafonul ca dreaptă (pe axe logaritmice, jetoane/s = lățime de bandă / octeți), și ce spun cifrele
    despre cel mai mic și cel mai mare model."""
    import matplotlib.pyplot as plt

    from ..grafice import arata

    tabel = []
    for r in randuri:
        c = r.configuratie
        tabel.append([f"{c.nr_straturi} × {c.dim_model}", _parametri_text(r.parametri), format_octeti(r.octeti_pe_pas),
                      jetoane_pe_s(r.jetoane_pe_s("eager")), jetoane_pe_s(r.jetoane_pe_s("compilat")),
                      jetoane_pe_s(r.plafon), format_procent(r.jetoane_pe_s("compilat") / r.plafon)])
    print(_tabel(["straturi × lățime", "parametri", "octeți pe pas", "eager", "compilat", "plafonul", "compilat, din plafon"], tabel))
    figura, ax = plt.subplots(figsize=(7.5, 4.2))
    x = [r.octeti_pe_pas for r in randuri]
    for nume, marcaj in (("eager", "o"), ("compilat", "s")):
        ax.plot(x, [r.jetoane_pe_s(nume) for r in randuri], marker=marcaj, label=nume)
    capete = [min(x) / 1.5, max(x) * 1.5]
    ax.plot(capete, [plafon_jetoane(o, randuri[0].gbps) for o in capete], linestyle="--", color="black",
            label="plafonul: lățimea de bandă / octeți")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("octeți citiți pe pas (greutăți + cache KV)")
    ax.set_ylabel("jetoane/s (lotul 1)")
    ax.set_title("mărimea modelului: unde ajunge decodarea față de plafon")
    ax.legend()
    figura.tight_layout()
    arata(figura)
    mic, mare = randuri[0], randuri[-1]
    for r, cine in ((mic, "cel mai mic model"), (mare, "cel mai mare model")):
        raport = r.comparatie.accelerare("eager", "compilat")
        print(f"La {cine} ({format_octeti(r.octeti_pe_pas)} pe pas): compilat, {format_procent(r.jetoane_pe_s('compilat') / r.plafon)} "
              "din plafon; " + concluzie_accelerare(raport, "decodarea compilată", "cea eager",
                                                    cauza=None if pe_gpu else CAUZA_PE_PROCESOR))
    parte_mic, parte_mare = (r.jetoane_pe_s("compilat") / r.plafon for r in (mic, mare))
    if parte_mare > parte_mic:
        print("Cu cât modelul e mai mare, cu atât pasul e mai aproape de plafon: la un model mic, costul fix al fiecărui pas "
              "(lansări, gărzi, Python) cântărește mai mult decât citirea greutăților.")
    else:
        print("Aici modelul mai mare n-a ajuns mai aproape de plafon decât cel mic: la modelul mic, greutățile încap "
              "probabil într-un cache mai rapid decât memoria, iar plafonul e al memoriei.")
    cifre.inregistreaza("11.marime_mare_parte_din_plafon", parte_mare, "", "cel mai mare model: partea din plafon, compilat",
                        prag_absolut=0.05)


@dataclass
class RandLot:
    """Un lot din baleiaj: jetoanele pe secundă (toate secvențele), plafonul memoriei și cel al calculului."""

    lot: int
    masuratoare: object
    pasi: int
    plafon_memorie: float
    plafon_calcul: float

    @property
    def jetoane_pe_s(self) -> float:
        return self.lot * self.pasi / self.masuratoare.mediana_s


def masoara_loturile(marimi: Marimi, model: ReteaTransformer, gbps: float, varf_flops: float, mod: str | None,
                     dispozitiv, compilat_lotul_1: Callable | None = None) -> list[RandLot]:
    """Decodarea compilată a modelului de viteză pe fiecare lot din `marimi.loturi` (un cache static și o
    compilare pentru fiecare lot; la lotul 1, `compilat_lotul_1`, dacă e dat, decodarea deja compilată), cu plafonul memoriei (lot × lățimea de bandă / octeții pe pas) și
    plafonul calculului (vârful măsurat / operațiile unui jeton)."""
    v = marimi.viteza
    octeti = octeti_modelului(model)
    flops = _flops_pe_jeton(model, marimi.prompt + marimi.jetoane_noi / 2)
    randuri = []
    pozitii = torch.arange(v.lungime, device=dispozitiv)
    lungime = v.lungime
    for lot in marimi.loturi:
        if lot == 1 and compilat_lotul_1 is not None:
            decodor, compilat = None, compilat_lotul_1
        else:
            decodor = DecodorStatic(model, lot=lot, lungime_maxima=lungime)
            jeton = torch.zeros(lot, 1, dtype=torch.long, device=dispozitiv)
            compilat = _compileaza_pasul(decodor, f"decodare_lot_{lot}", mod, (jeton, pozitii[marimi.prompt:marimi.prompt + 1]))
        with torch.no_grad():
            masuratoare = masoara(bucla_statica(compilat, lot, marimi.prompt, marimi.jetoane_noi, dispozitiv, lungime),
                                  eticheta=f"lotul {lot}", timp_minim_s=_timp_minim(), ceas="perete")
        randuri.append(RandLot(lot, masuratoare, marimi.jetoane_noi,
                               plafon_jetoane(octeti.mediu_pe_pas(marimi.prompt, marimi.jetoane_noi, lot), gbps, lot),
                               varf_flops / flops))
        del decodor, compilat
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    return randuri


def arata_loturile(randuri: Sequence[RandLot]) -> None:
    """Tabelul și graficul loturilor: jetoanele pe secundă măsurate, plafonul memoriei (crește cu lotul)
    și plafonul calculului (nu crește); apoi, din cifre, unde decodarea încetează să fie limitată de memorie."""
    import matplotlib.pyplot as plt

    from ..grafice import arata

    tabel = [[format_numar(r.lot), jetoane_pe_s(r.jetoane_pe_s), jetoane_pe_s(r.plafon_memorie), jetoane_pe_s(r.plafon_calcul),
              format_procent(r.jetoane_pe_s / min(r.plafon_memorie, r.plafon_calcul))] for r in randuri]
    print(_tabel(["lotul", "jetoane/s (toate secvențele)", "plafonul memoriei", "plafonul calculului", "din plafonul mai mic"], tabel))
    figura, ax = plt.subplots(figsize=(7.5, 4.2))
    loturi = [r.lot for r in randuri]
    ax.plot(loturi, [r.jetoane_pe_s for r in randuri], marker="o", label="măsurat (compilat)")
    ax.plot(loturi, [r.plafon_memorie for r in randuri], linestyle="--", color="black", label="plafonul memoriei")
    ax.plot(loturi, [r.plafon_calcul for r in randuri], linestyle=":", color="tab:red", label="plafonul calculului (vârful măsurat)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(loturi, [format_numar(l) for l in loturi])
    ax.set_xlabel("lotul (secvențe decodate împreună)")
    ax.set_ylabel("jetoane/s")
    ax.set_title("lotul: greutățile citite o dată pentru toate secvențele")
    ax.legend()
    figura.tight_layout()
    arata(figura)
    for a, b in zip(randuri, randuri[1:]):
        crestere = b.jetoane_pe_s / a.jetoane_pe_s
        factor = b.lot / a.lot
        inceput = f"Lotul {format_numar(a.lot)} → {format_numar(b.lot)} (×{format_numar(factor)}): jetoanele pe secundă "
        if crestere < 0.95:
            print(inceput + f"au scăzut (×{format_numar(crestere)}): un pas al lotului mare a costat de peste "
                  f"{_ori(factor)} mai mult decât unul al lotului mic, deci aici pasul nu mai e dominat de citirea greutăților, ci de "
                  "altceva (calculul, cache-ul KV al fiecărei secvențe, operațiile mai mari pe mașina ta).")
            continue
        if crestere > 1.25 * factor:
            ce = ("mai mult decât lotul: pasul lotului mic a fost încetinit de altceva decât citirea greutăților (costul fix al "
                  "operațiilor, zgomotul măsurării, alte programe pe aceleași nuclee); greutățile se citesc tot o dată pe pas")
        elif crestere >= 0.75 * factor:
            ce = "aproape cât lotul: greutățile se citesc o dată pentru toate secvențele, deci pasul costă aproape la fel"
        elif crestere > 1.1:
            ce = ("mai încet decât lotul: pasul a început să coste mai mult cu lotul (calculul, cache-ul KV al fiecărei "
                  "secvențe), deci decodarea nu mai e limitată doar de citirea greutăților")
        else:
            ce = "aproape deloc: aici pasul nu mai e limitat de citirea greutăților"
        print(inceput + f"au crescut de {cu_unitate(crestere, '×')}, {ce}.")
    calcul = next((r for r in randuri if r.plafon_calcul < r.plafon_memorie), None)
    if calcul is not None:
        print(f"De la lotul {format_numar(calcul.lot)}, plafonul calculului (vârful măsurat) e sub cel al memoriei: după plafoane, "
              "acolo decodarea nu mai e limitată de memorie, ci de calcul.")
    else:
        print("La loturile de aici, plafonul memoriei rămâne sub cel al calculului: după plafoane, decodarea ar rămâne limitată de "
              "memorie; cu loturi mai mari, plafonul memoriei l-ar ajunge pe cel al calculului.")
    departe = [r for r in randuri if r.jetoane_pe_s < 0.5 * min(r.plafon_memorie, r.plafon_calcul)]
    if departe:
        print(f"Măsurat, la {'loturile' if len(departe) > 1 else 'lotul'} "
              + ", ".join(format_numar(r.lot) for r in departe)
              + " decodarea a rămas sub jumătate din plafonul mai mic: acolo timpul se duce în altă parte decât în "
              "citirea greutăților sau în calculul lor la vârf (costul fix al operațiilor, produse de matrice mai lente decât "
              "vârful, atenția).")
    for r in randuri:
        cifre.inregistreaza(f"11.lot{r.lot}_jetoane_pe_s", r.jetoane_pe_s, "jetoane/s", f"decodarea compilată, lotul {r.lot}",
                            depinde_de_procesor=not torch.cuda.is_available())


def exploreaza_plafonul(gbps: float, varf_flops: float) -> None:
    """Explorator: alegi mărimea unui model ipotetic (straturi × lățime), precizia greutăților, lotul și
    contextul; vezi plafonul în jetoane pe secundă pe mașina ta (lățimea de bandă măsurată), partea
    greutăților și a cache-ului KV din octeții unui pas și plafonul calculului (vârful măsurat)."""
    import matplotlib.pyplot as plt

    from ..explorator import Control, exploreaza
    from ..grafice import arata

    modele = {"12 × 768 (0,1 miliarde)": (12, 768), "24 × 2 048 (1,2 miliarde)": (24, 2048),
              "32 × 4 096 (6,4 miliarde)": (32, 4096)}
    loturi = [1, 2, 4, 8, 16, 32, 64, 128, 256]

    def actualizeaza(model: str, precizie: int, lot: int, context: int):
        straturi, latime = modele[model]
        parametri = 12 * straturi * latime * latime
        octeti = Octeti(parametri * precizie, 0, 2 * straturi * latime * 2)
        flops = 2 * parametri + 4 * straturi * latime * context
        memorie = [plafon_jetoane(octeti.pe_pas(context - 1, l), gbps, l) for l in loturi]
        calcul = varf_flops / flops
        figura, ax = plt.subplots(figsize=(7, 3.8))
        ax.plot(loturi, memorie, linestyle="--", color="black", label="plafonul memoriei")
        ax.plot(loturi, [calcul] * len(loturi), linestyle=":", color="tab:red", label="plafonul calculului")
        ax.plot(loturi, [min(m, calcul) for m in memorie], color="tab:blue", linewidth=2, label="plafonul (cel mai mic)")
        ax.plot([lot], [min(plafon_jetoane(octeti.pe_pas(context - 1, lot), gbps, lot), calcul)], marker="*", markersize=16,
                color="tab:orange", linestyle="none", label=f"lotul {lot}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(loturi, [format_numar(l) for l in loturi])
        ax.set_xlabel("lotul")
        ax.set_ylabel("jetoane/s (plafon)")
        ax.set_title(f"{model}, {format_numar(precizie)} octeți pe greutate, context {format_numar(context)}")
        ax.legend(fontsize=8)
        figura.tight_layout()
        arata(figura)
        pas = octeti.pe_pas(context - 1, lot)
        parte_greutati = octeti.greutati / pas
        plafon = plafon_jetoane(pas, gbps, lot)
        print(f"Un pas citește {format_octeti(pas)}: greutățile {format_procent(parte_greutati)}, cache-ul KV "
              f"{format_procent(1 - parte_greutati)}. Plafonul memoriei: {jetoane_pe_s(plafon)}; al calculului: "
              f"{jetoane_pe_s(calcul)}; " + ("limitat de memorie." if plafon < calcul else "limitat de calcul."))

    exploreaza(
        actualizeaza,
        model=Control("modelul", list(modele), "24 × 2 048 (1,2 miliarde)"),
        precizie=Control("octeți pe greutate", [("float32: 4", 4), ("bfloat16: 2", 2), ("int8: 1", 1)], 2),
        lot=Control("lotul", loturi, 1),
        context=Control("context", [256, 1024, 4096, 16384, 65536], 1024),
    )


# ---------------------------------------------------------------------------------------------
# 5. Greutăți int8, doar greutățile
# ---------------------------------------------------------------------------------------------


def cuantizeaza_greutatea(greutate: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Cuantizarea simetrică pe canalele de ieșire: pentru fiecare rând (un canal de ieșire), scala e
    valoarea lui absolută maximă împărțită la 127; greutatea împărțită la scală, rotunjită, în int8.
    Un rând numai cu zerouri primește o scală minusculă, nu zero (fără împărțire la zero)."""
    greutate = greutate.detach().float()
    scala = greutate.abs().amax(dim=1).clamp(min=1e-12) / 127
    return torch.round(greutate / scala[:, None]).clamp(-127, 127).to(torch.int8), scala


class LiniarInt8(nn.Module):
    """Un `nn.Linear` cu greutățile în int8 (doar greutățile: activările rămân în tipul lor), cu o scală
    pe fiecare canal de ieșire. Memoria greutății: un octet pe element, plus o scală pe rând.

    `forma` alege cum se scrie produsul:

    - `"liniar"`: `F.linear(x, greutate.to(x.dtype)) * scala` — pentru compilator, o conversie a
      greutății întregi urmată de un produs de matrice din bibliotecă;
    - `"reducere"`: la un singur rând de intrare (decodarea cu lotul 1), produsul scris ca înmulțire
      și sumă, `(x.unsqueeze(-2) * greutate.to(x.dtype)).sum(-1) * scala`: o reducere pe care Inductor
      o generează ca un singur kernel care citește direct int8 (pe GPU, Inductor face singur această
      rescriere pentru un produs cu un rând, cu `coordinate_descent_tuning=True`). Pentru mai multe
      rânduri (umplerea, loturile), forma `"liniar"`."""

    def __init__(self, liniar: nn.Linear, forma: str = "reducere", tip: torch.dtype | None = None):
        super().__init__()
        if forma not in ("liniar", "reducere"):
            raise ValueError(f"forma trebuie să fie „liniar” sau „reducere”, nu {forma!r}")
        tip = tip or liniar.weight.dtype
        greutate, scala = cuantizeaza_greutatea(liniar.weight)
        self.in_features, self.out_features = liniar.in_features, liniar.out_features
        self.forma = forma
        self.register_buffer("greutate", greutate)
        self.register_buffer("scala", scala.to(tip))
        self.register_buffer("bias", liniar.bias.detach().to(tip).clone() if liniar.bias is not None else None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.forma == "reducere" and x.shape[:-1].numel() == 1:
            y = (x.unsqueeze(-2) * self.greutate.to(x.dtype)).sum(dim=-1)
        else:
            y = F.linear(x, self.greutate.to(x.dtype))
        y = y * self.scala
        return y + self.bias if self.bias is not None else y

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, forma={self.forma}"


def cuantizeaza_modelul(model: ReteaTransformer, forma: str = "reducere") -> ReteaTransformer:
    """O copie a lui `model` în care fiecare `nn.Linear` (atenția, rețeaua feed-forward, capul de ieșire)
    devine `LiniarInt8` cu `forma` dată. Înglobările și normalizările rămân în tipul modelului; la fel
    activările și cache-ul KV."""
    tip = next(model.parameters()).dtype
    copie = copy.deepcopy(model)
    for nume, modul in list(copie.named_modules()):
        for nume_copil, copil in list(modul.named_children()):
            if isinstance(copil, nn.Linear):
                setattr(modul, nume_copil, LiniarInt8(copil, forma, tip))
    copie.tip_activari = tip
    return copie.eval()


@dataclass(frozen=True)
class AnalizaInt8:
    """Ce a generat Inductor pentru un `LiniarInt8`: kernel-urile (nume, limbaj, dacă citesc int8, dacă
    fac o reducere), conversiile separate (un kernel care citește int8 și scrie greutatea în float, fără
    produs), citirile int8 fuzionate în produs, produsele din bibliotecă și dacă greutățile au fost
    înghețate (convertite o dată, la compilare)."""

    eticheta: str
    kerneluri: tuple[tuple[str, str, bool, bool], ...]
    conversii_separate: int
    citiri_fuzionate: int
    produse_biblioteca: int
    inghetat: bool
    linii_cheie: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        if self.citiri_fuzionate and not self.conversii_separate:
            return "fuzionat: un singur kernel citește int8 și face produsul"
        if self.conversii_separate:
            return "nefuzionat: greutatea întreagă e convertită în float la fiecare apel, apoi produsul"
        if self.inghetat:
            return "înghețat: conversia s-a făcut o dată, la compilare; greutatea stă în memorie în float"
        return "int8 nu apare în codul generat"


def analizeaza_codul_int8(cod: str, eticheta: str = "") -> AnalizaInt8:
    """Citește codul scris de Inductor (`cap03_fuziune.cod_generat`) și spune cum e citită greutatea
    int8: un kernel C++ cu `int8_t` sau unul Triton cu un argument `*i8` o citește; e o citire
    fuzionată dacă același kernel face și o reducere (suma produsului: `tl.sum` sau un kernel de reducere
    Triton, o acumulare sau `sum` în numele unui kernel C++), o conversie separată altfel. Un apel
    `_weight_int8pack_mm` (kernel-ul bibliotecii pentru int8) e tot o citire fuzionată; `_frozen_param`
    fără nicio citire int8 înseamnă greutăți înghețate."""
    from .cap03_fuziune import kerneluri_generate, linii_cheie

    kerneluri = []
    conversii, fuzionate, cheie = 0, 0, ()
    for k in kerneluri_generate(cod):
        if k.limbaj == "triton":
            int8 = "'*i8'" in k.sursa or '"*i8"' in k.sursa or "tl.int8" in k.sursa
            reducere = "tl.sum(" in k.sursa or k.nume.startswith(("triton_red", "triton_per"))
        else:
            int8 = "int8_t" in k.sursa
            reducere = "_sum" in k.nume or "tmp_acc" in k.sursa
        kerneluri.append((k.nume, k.limbaj, int8, reducere))
        if int8 and reducere:
            fuzionate += 1
            if not cheie:
                cheie = tuple(linii_cheie(k)[:14])
        elif int8:
            conversii += 1
    fuzionate += cod.count("_weight_int8pack_mm(")
    produse = len([l for l in cod.splitlines() if "extern_kernels.mm(" in l or "extern_kernels.addmm(" in l
                   or "_mkl_linear" in l or "mkldnn._linear" in l])
    inghetat = "_frozen_param" in cod and not any(i for _, _, i, _ in kerneluri) and "_weight_int8pack_mm(" not in cod
    return AnalizaInt8(eticheta, tuple(kerneluri), conversii, fuzionate, produse, inghetat, cheie)


def codul_int8(liniar: nn.Linear, tip: torch.dtype, dispozitiv) -> list[AnalizaInt8]:
    """Compilează un `LiniarInt8` (făcut din `liniar`) pe o intrare cu un singur rând, ca la decodare, în
    trei feluri, și citește codul generat de fiecare (`cap03_fuziune.cod_generat`, fiecare compilare de la
    zero): forma `"liniar"`, forma `"reducere"` și forma `"reducere"` cu înghețarea greutăților
    (`torch._inductor.config.freezing=True`, sub `torch.no_grad`)."""
    from .cap03_fuziune import cod_generat

    x = torch.randn(1, 1, liniar.in_features, device=dispozitiv).to(tip)
    rezultate = []
    for eticheta, forma, inghetare in (("F.linear(x, greutate.to(x.dtype))", "liniar", False),
                                       ("(x * greutate.to(x.dtype)).sum(-1)", "reducere", False),
                                       ("aceeași reducere, cu înghețarea greutăților (freezing)", "reducere", True)):
        strat = LiniarInt8(liniar, forma, tip).to(dispozitiv)
        with torch.no_grad(), torch._inductor.config.patch(freezing=inghetare):
            cod = cod_generat(lambda x, strat=strat: strat(x), x)
        rezultate.append(analizeaza_codul_int8(cod, eticheta))
    return rezultate


def arata_codul_int8(analize: Sequence[AnalizaInt8], pe_gpu: bool) -> None:
    """Pentru fiecare formă: kernel-urile generate (care citește int8, care face reducerea) și verdictul;
    apoi liniile-cheie ale kernel-ului fuzionat."""
    for a in analize:
        print(f"{a.eticheta}: {a.verdict}.")
        for nume, limbaj, int8, reducere in a.kerneluri:
            ce = ("citește int8 și face suma produsului" if int8 and reducere else "citește int8 și scrie greutatea în float"
                  if int8 else "face suma produsului (fără int8)" if reducere else "operații element cu element")
            print(f"    {nume} ({'Triton' if limbaj == 'triton' else 'C++'}): {ce}")
        if a.produse_biblioteca:
            print(f"    plus {cu_substantiv(a.produse_biblioteca, 'produs de matrice din bibliotecă', 'produse de matrice din bibliotecă')} (în float)")
    fuzionat = next((a for a in analize if a.citiri_fuzionate and a.linii_cheie), None)
    if fuzionat is not None:
        print(f"\nLiniile-cheie ale kernel-ului fuzionat ({fuzionat.eticheta}):")
        for linie in fuzionat.linii_cheie:
            print("    " + (linie if len(linie) <= 150 else linie[:149] + "…"))


@dataclass
class RezultatInt8:
    """Decodarea compilată a modelului de viteză în float și în int8 (mai multe forme), măsurate împreună."""

    viteza: Viteza
    referinta: str
    octeti_float: int
    octeti_int8: int
    tip: torch.dtype = torch.float32


def masoara_int8(marimi: Marimi, model: ReteaTransformer, compilat_float: Callable, gbps: float, mod: str | None,
                 dispozitiv) -> RezultatInt8:
    """Compilează decodarea modelului de viteză cuantizat în int8 (forma `"liniar"` și forma `"reducere"`;
    pe GPU, și forma `"liniar"` fără `coordinate_descent_tuning`, cum a rulat-o sonda de pe un H100) și o
    măsoară împreună cu decodarea float deja compilată (`compilat_float`), pe aceiași pași."""
    v = marimi.viteza
    pozitii = torch.arange(v.lungime, device=dispozitiv)
    jeton = torch.zeros(1, 1, dtype=torch.long, device=dispozitiv)
    exemplu = (jeton, pozitii[marimi.prompt:marimi.prompt + 1])
    referinta = f"{marimi.nume_tip}, compilat"
    variante = {referinta: bucla_statica(compilat_float, 1, marimi.prompt, marimi.jetoane_noi, dispozitiv, v.lungime)}
    octeti_float = octeti_modelului(model)
    octeti = {referinta: octeti_float.mediu_pe_pas(marimi.prompt, marimi.jetoane_noi)}
    forme = [("int8, F.linear, compilat", "liniar", {}), ("int8, reducere explicită, compilat", "reducere", {})]
    if torch.cuda.is_available():
        forme.insert(0, ("int8, F.linear, fără coordinate_descent_tuning", "liniar", {"coordinate_descent_tuning": False}))
    octeti_int8 = None
    for nume, forma, optiuni in forme:
        model_int8 = cuantizeaza_modelul(model, forma)
        decodor = DecodorStatic(model_int8)
        with torch._inductor.config.patch(**optiuni):
            compilat = _compileaza_pasul(decodor, f"decodare_int8_{forma}_{len(optiuni)}", mod, exemplu)
        variante[nume] = bucla_statica(compilat, 1, marimi.prompt, marimi.jetoane_noi, dispozitiv, v.lungime)
        octeti_int8 = octeti_modelului(model_int8)
        octeti[nume] = octeti_int8.mediu_pe_pas(marimi.prompt, marimi.jetoane_noi)
    viteza = masoara_viteza(variante, octeti, marimi.jetoane_noi, gbps, model.numar_parametri())
    return RezultatInt8(viteza, referinta, octeti_float.greutati, octeti_int8.greutati, marimi.tip)


def arata_int8(r: RezultatInt8, pe_gpu: bool, analize: Sequence[AnalizaInt8] = ()) -> None:
    """Octeții greutăților în float și în int8, tabelul vitezei cu plafonul fiecărei variante, graficul și
    verdictele: fiecare formă int8 față de float, cu cauza spusă de codul generat (`analize`, din
    `codul_int8`, aceleași forme: F.linear, apoi reducerea), când forma aceea e mai lentă și codul ei nu e
    fuzionat. Pe un GPU mare, cu un model de cel puțin un miliard de parametri, judecă și ținta de 1,5×."""
    from ..grafice import arata

    v = r.viteza
    nume = list(v.comparatie.masuratori)
    tip = r.referinta.split(",")[0]
    print(f"Greutățile citite la un pas: {format_octeti(r.octeti_float)} în {tip}, {format_octeti(r.octeti_int8)} în int8 "
          f"(de {cu_unitate(r.octeti_float / r.octeti_int8, '×')} mai puțini octeți; scalele, normalizările și înglobările "
          "rămân în tipul modelului).")
    randuri = [[n, jetoane_pe_s(v.jetoane_pe_s(n)), format_octeti(v.octeti[n]), jetoane_pe_s(v.plafon(n)), format_procent(v.parte(n))]
               for n in nume]
    print(_tabel(["varianta", "jetoane/s", "octeți pe pas", "plafonul ei", "din plafon"], randuri))
    _grafic_jetoane(v, "greutăți int8 față de float, decodarea compilată")
    arata()
    nota = _nota_peste_plafon(v, nume, pe_gpu)
    if nota:
        print(nota)
    analiza = {"F.linear": analize[0] if len(analize) > 0 else None, "reducere": analize[1] if len(analize) > 1 else None}
    for n in nume[1:]:
        raport = v.comparatie.accelerare(r.referinta, n)
        cauza = None
        if "fără coordinate_descent_tuning" in n:
            cauza = ("fără coordinate_descent_tuning, Inductor lasă produsul cu un singur rând unei biblioteci: greutatea int8 "
                     "e convertită întreagă în tipul activărilor la fiecare pas, apoi citită din nou de produs")
        else:
            a = analiza["F.linear" if "F.linear" in n else "reducere"]
            if a is not None and a.conversii_separate:
                cauza = ("greutatea int8 e convertită întreagă la fiecare pas: un kernel citește un octet pe greutate și scrie "
                         f"{format_numar(torch.empty((), dtype=r.tip).element_size())}, apoi produsul din bibliotecă le citește "
                         "iar; codul generat de mai sus o arată")
        print(concluzie_accelerare(raport, f"Varianta „{n}”", f"cea {tip}", ce_se_compara="variante", cauza=cauza))
        cifre.inregistreaza(f"11.int8_{_cheie(n)}_fata_de_float", raport, "×", f"{n} față de {r.referinta}")
    if _tinte_se_judeca(pe_gpu, v.parametri):
        cea_mai_buna = max(nume[1:], key=lambda n: v.comparatie.accelerare(r.referinta, n).mediana)
        raport = v.comparatie.accelerare(r.referinta, cea_mai_buna)
        print(f"  ținta (int8 de cel puțin {cu_unitate(TINTA_INT8, '×')} față de {tip}), cu „{cea_mai_buna}”: "
              f"{_judeca_tinta(raport, TINTA_INT8)}")
    elif not pe_gpu:
        print("Ținta de pe GPU (int8 de cel puțin 1,5 ori mai rapid decât bfloat16) nu se judecă pe procesor. "
              + cifre.despre_referinta("int8 față de bfloat16 pe un GPU mare", "11.int8_"))


@dataclass(frozen=True)
class Calitate:
    """Costul int8 în calitate, pe poziții de text: potrivirea predicției de top (argmax), divergența
    Kullback–Leibler a distribuțiilor (float față de int8, în nats, media și maximul pe poziții), cât de des
    prezice fiecare model jetonul corect și jetoanele generate identic."""

    eticheta: str
    pozitii: int
    potrivire_top1: float
    kl_mediu: float
    kl_maxim: float
    acuratete_float: float
    acuratete_int8: float
    generate_identice: int
    generate: int


def _calitate(eticheta: str, model: ReteaTransformer, intrari: torch.Tensor, tinte: torch.Tensor, prompt: torch.Tensor,
              jetoane_noi: int, genereaza_naiv: Callable) -> Calitate:
    model_int8 = cuantizeaza_modelul(model, "liniar")
    with torch.no_grad():
        float_ = model(intrari).double()
        int8 = model_int8(intrari).double()
        log_p, log_q = float_.log_softmax(-1), int8.log_softmax(-1)
        kl = (log_p.exp() * (log_p - log_q)).sum(-1)
        generat_float = genereaza_naiv(model, prompt, jetoane_noi)[:, prompt.shape[1]:]
        generat_int8 = genereaza_naiv(model_int8, prompt, jetoane_noi)[:, prompt.shape[1]:]
    return Calitate(
        eticheta, intrari.numel(), float((float_.argmax(-1) == int8.argmax(-1)).double().mean()), float(kl.mean()),
        float(kl.max()), float((float_.argmax(-1) == tinte).double().mean()), float((int8.argmax(-1) == tinte).double().mean()),
        int((generat_float == generat_int8).sum()), generat_float.numel(),
    )


def calitatea_int8(antrenat: ModelAntrenat, tip: torch.dtype, genereaza_naiv: Callable, jetoane_noi: int,
                   secvente: int = 8) -> list[Calitate]:
    """Costul int8 în calitate, pe `secvente` secvențe nevăzute ale ciclului (câteva sute de poziții), în
    `tip`: modelul antrenat față de copia lui int8, apoi același model neantrenat (greutăți aleatoare), ca
    să se vadă de ce potrivirea predicției de top nu spune nimic la un model care nu prezice nimic."""
    c = antrenat.model.configuratie
    generator = torch.Generator().manual_seed(2024)
    jetoane = antrenat.date.secvente(secvente, c.lungime + 1, generator)
    intrari, tinte = jetoane[:, :-1], jetoane[:, 1:]
    prompt = jetoane[:1, :8]
    antrenat_tip = copy.deepcopy(antrenat.model).to(tip)
    torch.manual_seed(123)
    neantrenat = ReteaTransformer(c).to(intrari.device).to(tip).eval().requires_grad_(False)
    return [
        _calitate("modelul antrenat", antrenat_tip, intrari, tinte, prompt, jetoane_noi, genereaza_naiv),
        _calitate("același model, neantrenat", neantrenat, intrari, tinte, prompt, jetoane_noi, genereaza_naiv),
    ]


def arata_calitatea(rezultate: Sequence[Calitate], nume_tip: str) -> None:
    """Tabelul calității (int8 față de modelul în `nume_tip`) și ce spune fiecare rând."""
    randuri = [[c.eticheta, format_numar(c.pozitii), format_procent(c.potrivire_top1, 1), _kl(c.kl_mediu), _kl(c.kl_maxim),
                format_procent(c.acuratete_float, 1), format_procent(c.acuratete_int8, 1),
                f"{format_numar(c.generate_identice)} din {format_numar(c.generate)}"] for c in rezultate]
    print(_tabel(["model", "poziții", "aceeași predicție de top", "KL mediu (nats)", "KL maxim", f"corecte, {nume_tip}",
                  "corecte, int8", "jetoane generate identic"], randuri))
    antrenat = rezultate[0]
    print(f"Modelul antrenat: int8 schimbă predicția de top în {format_procent(1 - antrenat.potrivire_top1, 1)} din poziții, iar "
          f"distribuția următorului jeton se depărtează în medie cu {_kl(antrenat.kl_mediu)} nats (divergența KL).")
    if len(rezultate) > 1:
        neantrenat = rezultate[1]
        text = (f"Modelul neantrenat nu prezice nimic (corecte: {format_procent(neantrenat.acuratete_float, 1)}): distribuțiile "
                f"lui sunt aproape uniforme, iar potrivirea de {format_procent(neantrenat.potrivire_top1, 1)} e potrivirea a două "
                "ghiciri. La logit-uri aproape egale, o rotunjire poate muta argmax-ul")
        if neantrenat.potrivire_top1 < antrenat.potrivire_top1:
            text += (f", și aici l-a mutat mai des decât la modelul antrenat ({format_procent(1 - neantrenat.potrivire_top1, 1)} din "
                     f"poziții, față de {format_procent(1 - antrenat.potrivire_top1, 1)})")
        print(text + ". Costul în calitate se măsoară deci pe un model care chiar prezice ceva.")
    cifre.inregistreaza("11.int8_potrivire_top1", antrenat.potrivire_top1, "", "int8 față de float: aceeași predicție de top",
                        prag_absolut=0.02)
    cifre.inregistreaza("11.int8_kl_mediu", antrenat.kl_mediu, "nats", "int8 față de float: divergența KL medie", prag_absolut=0.01)


def _kl(valoare: float) -> str:
    """O divergență KL mică, cu cel puțin două cifre semnificative („0,00012”)."""
    if valoare <= 0:
        return "0"
    if valoare >= 0.01:
        return format_numar(valoare)
    return format_numar(valoare, max(3, 1 - math.floor(math.log10(valoare))))


# ---------------------------------------------------------------------------------------------
# 6. Ce arată doar un GPU
# ---------------------------------------------------------------------------------------------


def ce_arata_doar_gpu(pe_gpu: bool) -> None:
    """Pe procesor: ce rămâne de văzut pe un GPU și propoziția despre cifrele de referință (scrisă din ce
    are referința). Pe GPU: că totul a rulat aici."""
    if pe_gpu:
        print("Pe mașina ta, capitolul a rulat cu GPU-ul: grafurile CUDA, țintele și int8 pe GPU sunt cele de mai sus.")
        return
    print("Ce arată doar un GPU, și cum îl arată capitolul acolo:")
    for rand in (
        'reluările grafurilor CUDA la fiecare pas de decodare (mode="reduce-overhead"), numărate în urma profilerului;',
        "cât câștigă grafurile CUDA la un pas cu sute de kernel-uri mici, lansate altfel unul câte unul;",
        "decodarea unui model de peste un miliard de parametri, în bfloat16, față de lățimea de bandă a memoriei GPU-ului, cu ținta de 80%;",
        "kernel-ul Triton care citește int8 și face produsul (cu coordinate_descent_tuning=True) și ținta int8 de 1,5 ori bfloat16;",
        "golurile dintre kernel-uri și cele mai grele kernel-uri ale unui pas, unde o țintă e ratată.",
    ):
        print(f"  - {rand}")
    print(cifre.despre_referinta("decodarea pe un GPU (jetoane/s, partea din plafon, int8, compilările)", "11."))
